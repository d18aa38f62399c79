/**
 * A second attacker's pass, over the surfaces that landed after 67b4398: the sandbox's Web globals
 * (timers, URL, structuredClone, the bootstrap's code cache), @capabilities/task-storage, the studio
 * server, queued rate limits, remote A2A agents and serve's execute_code progress. As in
 * attack-pass.test.ts: each `it.fails` is a finding that still holds (its comment names the file and
 * line to fix; turn it into a plain `it` once fixed), each plain `it` an attack that is stopped, kept as
 * a regression (the G…/T…/S…/R…/A…/P… numbers are this pass's findings, fixed or not).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import { loadAgent } from '../../agents/load-agent.js';
import { createAgentRunner, type AgentRunner } from '../../agents/run-agent.js';
import { serveA2A, type RunningA2AServer } from '../../agents/a2a/serve-a2a.js';
import { createRateLimiter } from '../../bridge/rate-limiter.js';
import type { RateLimit } from '../../core/index.js';
import { createSandbox } from '../../runtime/create-sandbox.js';
import { TIMER_LIMITS } from '../../runtime/host/sandbox-timers.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';
import type { CapabilityCallHandler } from '../../core/protocol.js';
import type { RunResult } from '../../core/run-result.js';
import { createAgentSpacesMcpServer, createRunRouter, MAX_CALL_NOTIFICATIONS } from '../../server/create-mcp-server.js';
import { createSpace, type Space } from '../../space/index.js';
import { startStudio, type RunningStudio } from '../../studio/server/index.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('attack pass 2: the sandbox Web globals (one worker, several runs)', () => {
  const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
  afterAll(async () => {
    await sandbox.close();
  });

  // G1 (fixed): sandbox-globals-source.ts startTimer checked the pending and per-run caps, then
  // converted the delay (the program's valueOf), then counted the timer. A valueOf that starts timers
  // itself nests past both caps: 1,501 timers accepted in the isolate, the host (sandbox-timers.ts set)
  // silently ignored the 501 past its own cap, so they never fired and no TIMER_LIMIT was thrown.
  it('G1: a delay whose valueOf starts timers cannot pass the pending cap; every accepted timer fires', async () => {
    const code = [
      "import { sleep } from '@capabilities/math';",
      'let made = 0, fired = 0, refused = 0, depth = 0;',
      'const delay = { valueOf(): number { if (depth++ < 1_500) { try { setTimeout(() => { fired++; }, delay as never); made++; } catch (error) { if ((error as { code?: string }).code === "TIMER_LIMIT") refused++; } } return 1; } };',
      'try { setTimeout(() => { fired++; }, delay as never); made++; } catch { refused++; }',
      // Waits for the timers by an event (each answer of the host is a moment for them to fire), not by
      // a time: a timer that never fires leaves the program waiting until its run times out.
      'while (fired < made) await sleep({ ms: 10 });',
      'return { made, fired, refused };',
    ].join('\n');
    const result = await sandbox.run(code, { onCall: createFixtureHost().onCall });
    expect(result.error).toBeUndefined();
    const outcome = result.result as { made: number; fired: number; refused: number };
    expect(outcome.made).toBeLessThanOrEqual(TIMER_LIMITS.maxPending);
    expect(outcome.refused).toBeGreaterThan(0);
    expect(outcome.fired).toBe(outcome.made);
  });

  // G2 (fixed): a sandbox worker runs isolates on its own thread (THREADING 'caller'), so the isolate
  // and the worker's Node share one stack. A program that recursed to the brink of a stack overflow and
  // called setTimeout there made the host's timer callback (run-in-isolate.ts onTimer → Node's
  // setTimeout) overflow halfway through Node's timer-list update: from then on a co-resident run's
  // 1 ms timer never fired, and it ended with TIMEOUT (5 of 5 fresh workers). Timer requests are now
  // applied from a promise job, on a fresh stack.
  it('G2: a program that calls setTimeout with a full stack does not stop the timers of a co-resident run', async () => {
    const hostile = [
      "import { add } from '@capabilities/math';",
      'let made = 0, fired = 0;',
      'const deep = (n: number): void => { try { deep(n + 1); } catch { /* the stack is full */ } if (made < 900) { try { setTimeout(() => { fired++; }, 1); made++; } catch { /* overflowed */ } } };',
      'deep(0);',
      'await add({ a: 1, b: 1 });',
      'return { made, fired };',
    ].join('\n');
    const victim = 'await new Promise((resolve) => setTimeout(resolve, 1));\nreturn "victim timer fired";';
    // A fresh worker each time: its first run is where the overflow lands inside Node's timer code.
    for (let attempt = 0; attempt < 2; attempt++) {
      const fresh = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
      try {
        await fresh.ready();
        let victimRun: Promise<RunResult> | undefined;
        const attackerHost = createFixtureHost();
        // The victim starts once the attacker's timers are set (its call), and the attacker's call is
        // answered only when the victim has ended: both share the worker throughout.
        const onCall: CapabilityCallHandler = async (params, context) => {
          victimRun = fresh.run(victim, { onCall: createFixtureHost().onCall, limits: { timeoutMs: 5_000 } });
          await victimRun;
          return attackerHost.onCall(params, context);
        };
        const attacker = await fresh.run(hostile, { onCall, limits: { timeoutMs: 20_000 } });
        expect(attacker.success, attempt.toString()).toBe(true);
        expect(await victimRun, attempt.toString()).toMatchObject({ success: true, result: 'victim timer fired' });
      } finally {
        await fresh.close();
      }
    }
  }, 60_000);

  it('a co-resident run cannot clear or fire the timers of another run by guessing their ids', async () => {
    let victimArmed!: () => void;
    const armed = new Promise<void>((resolve) => (victimArmed = resolve));
    const victimHost = createFixtureHost();
    const onVictimCall: CapabilityCallHandler = async (params, context) => {
      const value = await victimHost.onCall(params, context);
      victimArmed();
      return value;
    };
    // The victim arms its timers (ids 1 and 2 in its isolate), then tells the host; the attacker's call is
    // answered only then, so its sweep of ids runs while the victim's timers are pending.
    const victim = sandbox.run(
      "import { add } from '@capabilities/math';\nlet ticks = 0;\nconst interval = setInterval(() => ticks++, 5);\nconst done = new Promise((resolve) => setTimeout(() => resolve('victim timer'), 40));\nawait add({ a: 1, b: 1 });\nconst value = await done;\nclearInterval(interval);\nreturn [value, ticks > 0];",
      { onCall: onVictimCall },
    );
    const attackerHost = createFixtureHost();
    const attacker = sandbox.run(
      "import { add } from '@capabilities/math';\nawait add({ a: 2, b: 2 });\nfor (let id = -5; id < 5_000; id++) { clearTimeout(id); clearInterval(id); }\nreturn 'swept';",
      { onCall: async (params, context) => { await armed; return attackerHost.onCall(params, context); } },
    );
    const [victimResult, attackerResult] = await Promise.all([victim, attacker]);
    expect(attackerResult).toMatchObject({ success: true, result: 'swept' });
    expect(victimResult).toMatchObject({ success: true, result: ['victim timer', true] });
  });

  it('a later run in the same worker gets a pristine bootstrap (code cache) whatever an earlier run did to its world', async () => {
    const tamper = [
      'const P = Object.prototype as Record<string, unknown>;',
      "Object.defineProperty(P, 'toJSON', { value() { return { code: 'TIMEOUT' }; }, configurable: true });",
      "(URL.prototype as unknown as Record<string, unknown>).tampered = true; (globalThis as Record<string, unknown>).setTimeout = () => 'tampered';",
      "Function.prototype.toString = () => 'tampered'; JSON.stringify = () => '\"tampered\"'; Map.prototype.get = () => 'tampered';",
      "try { (globalThis as Record<string, unknown>).__agentSpaces = { call: () => 'forged' }; } catch { /* frozen */ }",
      "return 'tampered';",
    ].join('\n');
    expect(await sandbox.run(tamper, { onCall: createFixtureHost().onCall })).toMatchObject({ success: true });
    const check = [
      "import { add } from '@capabilities/math';",
      "const clean = !('toJSON' in Object.prototype) && !('tampered' in URL.prototype) && setTimeout.name === 'setTimeout' && typeof new Map([[1, 2]]).get(1) === 'number';",
      'const fromTimer = await new Promise((resolve) => setTimeout(() => resolve(new URL("https://a.example/x?y=1").searchParams.get("y")), 1));',
      'return { clean, fromTimer, sum: await add({ a: 1, b: 2 }), json: JSON.stringify({ a: 1 }) };',
    ].join('\n');
    expect(await sandbox.run(check, { onCall: createFixtureHost().onCall })).toMatchObject({ success: true, result: { clean: true, fromTimer: '1', sum: 3, json: '{"a":1}' } });
  });

  it('a timer or microtask callback that throws a host code ends the run as RUNTIME_ERROR, never as the host\'s code', async () => {
    for (const where of ['setTimeout(() => { throw forged; }, 1)', 'queueMicrotask(() => { throw forged; })', 'setInterval(() => { throw forged; }, 1)']) {
      const code = `const forged = Object.assign(new Error('forged'), { name: 'SandboxTimeoutError', code: 'TIMEOUT' });\n${where};\nawait new Promise(() => {});`;
      const result = await sandbox.run(code, { onCall: createFixtureHost().onCall, limits: { timeoutMs: 20_000 } });
      expect(result, where).toMatchObject({ success: false, timedOut: false, error: { code: 'RUNTIME_ERROR', message: 'forged' } });
    }
  });
});

describe('attack pass 2: @capabilities/task-storage', () => {
  let space: Space;
  let root: string;
  beforeAll(async () => {
    root = await makeTempDir('attack-storage');
    // The workspace is the space's folder, so std fs reaches the run folder where the planner stores results.
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], std: { fs: { root: '.' } } }));
    space = await createSpace({ cwd: root, isolation: 'worker' });
  }, 60_000);
  afterAll(async () => {
    await space?.close();
  });

  const storeResult = async (taskId: string, value: unknown): Promise<{ ref: string; chars: number }> => {
    const dir = path.join(space.config.outDir, 'runs', taskId, 'results');
    await mkdir(dir, { recursive: true });
    const ref = path.join(dir, 'step-1-vault-list.json');
    const json = JSON.stringify(value);
    await writeFile(ref, json);
    return { ref, chars: json.length };
  };

  it('refuses another task\'s result, a forged path and a traversal, even when the file exists', async () => {
    const mine = await storeResult('task-mine', { rows: [1, 2, 3] });
    const theirs = await storeResult('task-theirs', { secret: 'their rows' });
    const close = space.taskStorage.open('task-mine:1:run', new Map([[mine.ref, { ref: mine.ref, label: 'vault.list', step: 1, chars: mine.chars }]]));
    try {
      const code = [
        "import { read } from '@capabilities/task-storage';",
        `const refs = [${JSON.stringify(theirs.ref)}, ${JSON.stringify(`${mine.ref}/../../../task-theirs/results/step-1-vault-list.json`)}, '/etc/passwd', ${JSON.stringify(path.relative(root, theirs.ref))}];`,
        'const outcomes = await Promise.all(refs.map((ref) => read({ ref }).then(() => "read", (error: { code: string }) => error.code)));',
        `return { outcomes, mine: (await read({ ref: ${JSON.stringify(mine.ref)}, path: 'rows' })).value };`,
      ].join('\n');
      const result = await space.run(code, { runId: 'task-mine:1:run', check: false });
      expect(result).toMatchObject({ success: true, result: { outcomes: ['FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN'], mine: [1, 2, 3] } });
    } finally {
      close();
    }
  });

  // T1 (fixed): task-storage.ts readStored read and parsed the stored file whole on every call, with no
  // size check: a program whose std fs workspace holds the run folder rewrote its own stored result as
  // an 8 MB JSON array (within its 64 MiB write quota), and a hundred parallel reads made the host parse
  // it a hundred times (~4 GB). Now the file must still be the size the host wrote, and a run's reads
  // of one result share one parse.
  it('T1: a stored result the program grew through std fs is refused, not parsed by the host', async () => {
    const stored = await storeResult('task-grow', Array.from({ length: 100 }, (_, index) => index));
    const close = space.taskStorage.open('task-grow:1:run', new Map([[stored.ref, { ref: stored.ref, label: 'vault.list', step: 1, chars: stored.chars }]]));
    try {
      const relative = path.relative(root, stored.ref);
      const code = [
        "import { writeFile, appendFile } from '@capabilities/std-fs';",
        "import { read } from '@capabilities/task-storage';",
        `const file = ${JSON.stringify(relative)};`,
        "await writeFile({ path: file, content: '[0' });",
        "const chunk = ',0'.repeat(400_000);",
        'for (let i = 0; i < 10; i++) await appendFile({ path: file, content: chunk });',
        "await appendFile({ path: file, content: ']' });",
        'const outcomes = await Promise.all(Array.from({ length: 100 }, () => read({ ref: ' + JSON.stringify(stored.ref) + ', limit: 1 }).then((page) => String(page.total), (error: { code: string }) => error.code)));',
        'return [...new Set(outcomes)];',
      ].join('\n');
      const result = await space.run(code, { runId: 'task-grow:1:run', check: false, limits: { timeoutMs: 60_000 } });
      expect(result).toMatchObject({ success: true, result: ['FORBIDDEN'] });
    } finally {
      close();
    }
  }, 90_000);
});

describe('attack pass 2: the studio server', () => {
  let studio: RunningStudio;
  beforeAll(async () => {
    const root = await makeTempDir('attack-studio');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    await writeFile(path.join(root, 'secret.txt'), 'not for web pages');
    const uiDir = path.join(root, 'ui');
    await mkdir(uiDir, { recursive: true });
    await writeFile(path.join(uiDir, 'index.html'), '<!doctype html><title>studio index</title>');
    studio = await startStudio({ openSpace, cwd: root, uiDir, isolation: 'worker' });
  }, 60_000);
  afterAll(async () => {
    await studio?.close();
  });

  /** A raw request: headers fetch would not send (Host), paths it would normalise. */
  const raw = (method: string, pathname: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; text: string }> => {
    const url = new URL(studio.origin);
    return new Promise((resolve, reject) => {
      const request = httpRequest({ host: url.hostname, port: url.port, method, path: pathname, headers: { host: url.host, ...headers } }, (response: IncomingMessage) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      });
      request.on('error', reject);
      request.end(body);
    });
  };
  const json = { 'content-type': 'application/json' };

  it('every API route, the event stream and an approval decision need the token', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    const attempts: [string, string, Record<string, string>, string?][] = [
      ['GET', '/api/space', {}], ['GET', '/api/events', {}], ['GET', '/api/events?token=wrong', {}], ['GET', '/api/events', { authorization: 'Bearer wrong' }],
      ['POST', '/api/run', json, '{"code":"export default 1"}'], ['POST', `/api/approvals/${uuid}`, json, '{"approved":true}'], ['PUT', '/api/agents/0/tools', json, '{"tools":[]}'],
      ['POST', '/api/run?token=' + encodeURIComponent(studio.token), json, '{"code":"export default 1"}'], ['GET', '/api/runs/..%2F..%2Fsecret.txt', {}],
    ];
    for (const [method, pathname, headers, body] of attempts) {
      expect((await raw(method, pathname, headers, body)).status, `${method} ${pathname}`).toBe(401);
    }
  });

  it('refuses a rebound Host and a cross-origin page, for the API (token or not) and for the UI files', async () => {
    const bearer = { authorization: `Bearer ${studio.token}`, ...json };
    expect((await raw('GET', '/', { host: 'attacker.example' })).status).toBe(403);
    expect((await raw('POST', '/api/run', { ...bearer, host: `attacker.example:${new URL(studio.origin).port}` }, '{"code":"export default 1"}')).status).toBe(403);
    expect((await raw('POST', '/api/run', { ...bearer, origin: 'http://attacker.example' }, '{"code":"export default 1"}')).status).toBe(403);
    expect((await raw('POST', '/api/run', { ...bearer, origin: 'null' }, '{"code":"export default 1"}')).status).toBe(403);
    // A form post cannot send JSON: refused before anything runs.
    expect((await raw('POST', '/api/run', { authorization: `Bearer ${studio.token}`, 'content-type': 'text/plain' }, '{"code":"export default 1"}')).status).toBe(415);
  });

  it('serves only the UI folder: traversals and encoded separators get index.html', async () => {
    for (const pathname of ['/..%2f..%2fsecret.txt', '/%2e%2e/%2e%2e/secret.txt', '/..%5c..%5csecret.txt', '/ui/../secret.txt', '/%00/../secret.txt']) {
      const answer = await raw('GET', pathname);
      expect(answer.text, pathname).not.toContain('not for web pages');
    }
  });

  it('a body past the cap is refused', async () => {
    const answer = await raw('POST', '/api/check', { authorization: `Bearer ${studio.token}`, ...json }, JSON.stringify({ code: 'x'.repeat(1_100_000) }));
    expect(answer.status).toBe(413);
  });

  // S1: studio-context.ts:65 keeps every call's (redacted) arguments in `timelines` (50 runs), and
  // api-playground.ts:37 returns and writes them all in code-run.json. A playground program makes
  // maxCalls (1,000) calls of maxArgumentBytes (1 MiB): the studio holds ~1 GiB per run and writes it
  // to disk with 2-space indentation (past V8's string limit it throws). Here 40 calls of 100 kB: the
  // record's timeline should stay bounded (e.g. arguments cut to a preview, as the UI shows anyway).
  it('S1: a run\'s call timeline does not keep every call\'s whole arguments', async () => {
    const code = "import { hash } from '@capabilities/std-crypto';\nconst data = 'x'.repeat(100_000);\nfor (let i = 0; i < 40; i++) await hash({ data });\nexport default 'hashed';";
    const answer = await raw('POST', '/api/run', { authorization: `Bearer ${studio.token}`, ...json }, JSON.stringify({ code }));
    expect(answer.status).toBe(200);
    const record = JSON.parse(answer.text) as { result: { success: boolean }; calls: unknown[] };
    expect(record.result.success).toBe(true);
    expect(record.calls).toHaveLength(40);
    expect(JSON.stringify(record.calls).length).toBeLessThan(1024 * 1024);
  }, 60_000);
});

describe('attack pass 2: queued rate limits', () => {
  const limit: RateLimit = { requests: 1, period: 'second', onLimit: 'queue', maxWaitMs: 200_000, maxQueue: 100 };

  it('a run that fills the line and ends leaves it: nothing stays queued and the next caller is served', async () => {
    const limiter = createRateLimiter();
    expect(await limiter.acquire('api', limit)).toMatchObject({ allowed: true });
    const hostile = new AbortController();
    const queued = Array.from({ length: 150 }, () => limiter.acquire('api', limit, hostile.signal));
    expect(limiter.waiting('api')).toBe(100);
    hostile.abort();
    const outcomes = await Promise.all(queued);
    expect(new Set(outcomes.map((outcome) => (outcome.allowed ? 'allowed' : outcome.reason)))).toEqual(new Set(['cancelled', 'queue-full']));
    expect(limiter.waiting('api')).toBe(0);
    // The next caller waits for the window only, and is served.
    expect(await limiter.acquire('api', limit)).toMatchObject({ allowed: true });
    expect(limiter.waiting('api')).toBe(0);
  }, 30_000);

  // R1 (fixed): the line for a capability was shared first-come first-served by every run, and maxQueue
  // counted every run's waiters: one run's program filled it and every other run's call was refused at
  // once. Now maxQueue bounds each owner (run), and owners take turns (an owner's k-th call waits in
  // round k), so another run's first call waits only behind the first call of each other run.
  it('R1: one run cannot take the whole shared line from another run', async () => {
    const limiter = createRateLimiter();
    await limiter.acquire('api', limit);
    const hostile = new AbortController();
    const queued = Array.from({ length: 100 }, () => limiter.acquire('api', limit, hostile.signal));
    const victim = new AbortController();
    const victimCall = limiter.acquire('api', limit, victim.signal);
    const early = await Promise.race([victimCall, Promise.resolve('waiting' as const)]);
    hostile.abort();
    victim.abort();
    await Promise.all([...queued, victimCall]);
    expect(early).toBe('waiting');
  });
});

/** A byte count of one answer the proxy passed on, and whether the client hung up before its end. */
interface ProxiedAnswer {
  bytes: number;
  clientClosedEarly: boolean;
}

/**
 * An HTTP proxy in front of an A2A server: the card it serves points at the proxy (and may be rewritten,
 * as a hostile server would write it), and it counts the bytes of each answer that reach the client.
 */
async function startA2AProxy(upstream: RunningA2AServer, answers: ProxiedAnswer[], rewriteCard: (card: Record<string, unknown>) => void = () => undefined): Promise<Server> {
  const upstreamUrl = new URL(upstream.origin);
  const proxy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const forwarded = httpRequest({ host: upstreamUrl.hostname, port: upstreamUrl.port, method: request.method, path: request.url, headers: { ...request.headers, host: upstreamUrl.host } }, (reply) => {
        if ((request.url ?? '').includes('agent-card.json')) {
          let text = '';
          reply.on('data', (chunk: Buffer) => (text += chunk.toString()));
          reply.on('end', () => {
            const card = JSON.parse(text.split(upstream.origin).join(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`)) as Record<string, unknown>;
            rewriteCard(card);
            const body = JSON.stringify(card);
            response.writeHead(reply.statusCode ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
            response.end(body);
          });
          return;
        }
        const record: ProxiedAnswer = { bytes: 0, clientClosedEarly: false };
        answers.push(record);
        response.writeHead(reply.statusCode ?? 200, reply.headers);
        reply.on('data', (chunk: Buffer) => {
          if (response.destroyed) return;
          record.bytes += chunk.byteLength;
          if (!response.write(chunk)) {
            reply.pause();
            response.once('drain', () => reply.resume());
          }
        });
        reply.on('end', () => response.end());
        response.on('close', () => {
          if (!response.writableFinished) record.clientClosedEarly = true;
          reply.destroy();
        });
      });
      forwarded.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

/** The proxy's address for the first agent of `upstream`. */
function proxiedUrl(upstream: RunningA2AServer, proxy: Server): string {
  return (upstream.agents[0]?.url ?? '').replace(upstream.origin, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
}

async function closeProxy(proxy: Server | undefined): Promise<void> {
  if (!proxy) return;
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
}

describe('attack pass 2: a hostile remote A2A agent', () => {
  let upstream: RunningA2AServer;
  let runner: AgentRunner;
  let proxy: Server;
  let space: Space;
  /** Bytes of message answers the proxy passed on, and whether the client hung up before the end. */
  const answers: ProxiedAnswer[] = [];

  beforeAll(async () => {
    const dir = await makeTempDir('attack-a2a-agent');
    await writeFile(path.join(dir, 'tsagent.json'), JSON.stringify({ metadata: { name: 'Flood Desk', version: '1.0.0', description: 'Answers at length' } }));
    // 24 MB of answer text: the bridge's result cap is 1 MiB.
    runner = createAgentRunner(await loadAgent(dir), { outDir: path.join(dir, 'out'), executeTask: async () => ({ success: true, finalSummary: 'x'.repeat(24_000_000) }) });
    upstream = await serveA2A([runner], { port: 0 });
    proxy = await startA2AProxy(upstream, answers);
    const proxied = proxiedUrl(upstream, proxy);
    const root = await makeTempDir('attack-a2a-space');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], agents: [proxied] }));
    space = await openSpace({ cwd: root, isolation: 'worker' });
    const build = await space.build();
    expect(build.errors).toEqual([]);
  }, 120_000);

  afterAll(async () => {
    await space?.close();
    await closeProxy(proxy);
    await upstream?.close();
    await runner?.close();
  });

  // A1 (fixed): connect-a2a-agent.ts read the remote agent's whole answer into the host's memory before
  // the bridge's 1 MiB result cap looked at it (its card too, with no time limit of its own). Card and
  // answers are now read through a bounded fetch: past the size it stops reading and closes the connection.
  it('A1: an answer far past the result cap is cut off while it arrives, not buffered whole', async () => {
    const result = await space.run("import { sendMessage } from '@capabilities/agent-flood-desk';\nconst answer = await sendMessage({ message: 'tell me everything' });\nexport default answer.text.length;", { check: false, limits: { timeoutMs: 60_000 } });
    expect(result.success).toBe(false);
    const answer = answers.at(-1);
    expect(answer).toBeDefined();
    expect(answer?.bytes ?? 0).toBeLessThan(8 * 1024 * 1024);
  }, 90_000);
});

describe('attack pass 2: a hostile A2A agent card', () => {
  it('a card whose texts close comments, quote and template is written escaped: nothing runs, the module name stays plain', async () => {
    const dir = await makeTempDir('attack-a2a-card');
    await writeFile(path.join(dir, 'tsagent.json'), JSON.stringify({ metadata: { name: 'Card Desk', version: '1.0.0', description: 'plain', skills: [{ id: 's', name: 'S', description: 'd', examples: ['e'] }] } }));
    const runner = createAgentRunner(await loadAgent(dir), { outDir: path.join(dir, 'out'), executeTask: async () => ({ success: true, finalSummary: 'plain answer' }) });
    const upstream = await serveA2A([runner], { port: 0 });
    const evil = '*/ globalThis.pwned = 1; export const pwned = 1; /* ` ${(globalThis as any).pwned = 2} \' " \u2028 </script>';
    const proxy = await startA2AProxy(upstream, [], (card) => {
      card.name = `../../${evil}`;
      card.description = evil;
      card.version = evil;
      card.skills = [{ id: 's', name: evil, description: evil, examples: [evil], tags: [] }];
    });
    const root = await makeTempDir('attack-a2a-card-space');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], agents: [proxiedUrl(upstream, proxy)] }));
    const space = await openSpace({ cwd: root, isolation: 'worker' });
    try {
      const build = await space.build();
      expect(build.errors).toEqual([]);
      const remote = (await space.capabilities()).find((capability) => capability.source.kind === 'agent');
      expect(remote?.module).toMatch(/^agent-[a-z0-9-]+$/);
      const code = `import { sendMessage } from '@capabilities/${remote?.module}';\nconst answer = await sendMessage({ message: 'hi' });\nexport default [answer.text, typeof (globalThis as Record<string, unknown>).pwned];`;
      expect(await space.run(code)).toMatchObject({ success: true, result: ['plain answer', 'undefined'] });
    } finally {
      await space.close();
      await closeProxy(proxy);
      await upstream.close();
      await runner.close();
    }
  }, 90_000);
});

describe('attack pass 2: serve\'s execute_code progress', () => {
  let space: Space;
  let client: Client;
  beforeAll(async () => {
    const root = await makeTempDir('attack-progress');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    const router = createRunRouter();
    space = await createSpace({ cwd: root, isolation: 'worker', onEvent: router.onEvent, approvalHandler: router.approve });
    const server = await createAgentSpacesMcpServer(space, router, { name: 'agent-spaces', version: '0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'attacker', version: '1' });
    await client.connect(clientSide);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await space?.close();
  });

  it('a remote caller\'s program sees no stored results: task-storage lists none and refuses every ref', async () => {
    const code = "import { list, read } from '@capabilities/task-storage';\nconst refused = await Promise.all(['/etc/passwd', '../runs/x/results/step-1.json', ''].map((ref) => read({ ref }).then(() => 'read', (error: { code: string }) => error.code)));\nexport default { listed: await list(), refused };";
    const run = await client.callTool({ name: 'execute_code', arguments: { code } });
    expect(run.structuredContent).toMatchObject({ success: true, result: { listed: [], refused: ['FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN'] } });
  });

  // P1 (fixed): create-mcp-server.ts sent a progress notification for every finished call, with no
  // bound (log lines had one): a program's maxCalls calls were as many notifications.
  it('P1: a program making many calls sends a bounded number of progress notifications', async () => {
    const progress: string[] = [];
    const code = "import { parse } from '@capabilities/std-json';\nfor (let i = 0; i < 600; i++) await parse({ text: '1' });\nfor (let i = 0; i < 600; i++) console.log('line', i);\nexport default 'done';";
    const run = await client.callTool({ name: 'execute_code', arguments: { code } }, undefined, { onprogress: (notification) => progress.push(notification.message ?? ''), timeout: 60_000 });
    expect(run.isError).toBeFalsy();
    expect(progress.filter((line) => line.startsWith('std-json.parse'))).toHaveLength(MAX_CALL_NOTIFICATIONS - 1);
    expect(progress.length).toBeLessThanOrEqual(MAX_CALL_NOTIFICATIONS + 200);
  }, 60_000);

});

/**
 * The channel between the host and a sandbox worker, where the program's side is hostile: replies a
 * worker does not read, calls made in one slice, what a program puts in a frame of its own worker, the
 * calls and log lines a program makes while its type-check decides (held, bounded, dropped on a failed
 * check), runs that end or are cancelled beside one that computes, the error of a failed check, a host
 * handler that throws, and an approval asked for a run that is over. Each case is followed by a healthy
 * run in the same host.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type WorkerSandbox } from '../../runtime/create-sandbox.js';
import type { RunResult } from '../../core/run-result.js';
import { maxQueuedArgumentBytes } from '../../runtime/host/call-gate.js';
import { DEFAULT_RUN_LIMITS } from '../../runtime/sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';
import { createWorkerPoolExecutor } from '../../runtime/worker-pool/worker-pool.js';
import { createSpace } from '../../space/index.js';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

const HEALTHY = "import { add } from '@capabilities/math';\nreturn await add({ a: 2, b: 3 });";
const MIB = 1024 * 1024;

let healthy: WorkerSandbox;
beforeAll(() => {
  healthy = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
});
afterAll(async () => {
  await healthy.close();
});
afterEach(async () => {
  expect(await healthy.run(HEALTHY, { onCall: createFixtureHost().onCall, check: false })).toMatchObject({ success: true, result: 5 });
});

/** A sandbox worker that lies (its modes: test/fixtures/hostile-worker.mjs). */
const HOSTILE_WORKER = path.join(REPO, 'test', 'fixtures', 'hostile-worker.mjs');

describe('replies a worker does not read', () => {
  for (const transport of ['process', 'thread'] as const)
    it(`a worker that stops reading does not have every result of its run buffered on the host (${transport})`, async () => {
      const pool = createWorkerPoolExecutor({ workers: 1, transport, entry: { file: HOSTILE_WORKER, args: ['deaf'] } });
      try {
        await pool.ready();
        let performed = 0;
        const result = 'x'.repeat(MIB - 16);
        const outcome = await pool.execute(
          {
            runId: 'deaf',
            js: 'export default async () => 1;',
            outDir: FIXTURE_OUT_DIR,
            limits: { ...DEFAULT_RUN_LIMITS, timeoutMs: 3_000 },
          },
          async () => {
            performed++;
            return result;
          },
        );
        // The host ends the run on its own clock; unbounded, all 1,000 results (a GiB) would be queued on the host.
        expect(outcome).toMatchObject({ success: false, error: { code: 'TIMEOUT' } });
        expect(performed).toBeLessThan(DEFAULT_RUN_LIMITS.maxConcurrentCalls + 50);
      } finally {
        await pool.close();
      }
    }, 60_000);

  it('a program that awaits many large results gets every one of them (calls resume as the worker reads)', async () => {
    let performed = 0;
    const result = 'x'.repeat(MIB - 16);
    const code =
      "import { echo } from '@capabilities/math';\nlet n = 0;\nawait Promise.all(Array.from({ length: 300 }, () => echo({ value: 1 }).then((v) => { n += (v as string).length; })));\nreturn n;";
    const outcome = await healthy.run(code, {
      check: false,
      limits: { timeoutMs: 120_000 },
      onCall: async () => {
        performed++;
        return result;
      },
    });
    expect(outcome).toMatchObject({ success: true, result: 300 * result.length });
    expect(performed).toBe(300);
  }, 180_000);
});

/** The most memory the process `pid` has held (VmHWM), in bytes. */
function peakMemoryOf(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
}

describe('calls made in one slice', () => {
  it('a thousand 1 MiB calls made without awaiting are not all queued in the worker, outside the isolate memory limit', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      const [pid] = sandbox.pids();
      let performed = 0;
      const code = [
        "import { echo } from '@capabilities/math';",
        "const big = 'x'.repeat(1024 * 1024 - 20);",
        'const all: Promise<string>[] = [];',
        "for (let i = 0; i < 990; i++) all.push(echo({ value: big }).then(() => 'done', (error: { code?: string }) => String(error.code)));",
        'const outcomes = await Promise.all(all);',
        "return { done: outcomes.filter((o) => o === 'done').length, refused: outcomes.filter((o) => o === 'CALL_LIMIT_EXCEEDED').length };",
      ].join('\n');
      const result = await sandbox.run(code, {
        check: false,
        limits: { timeoutMs: 120_000 },
        onCall: async () => {
          performed++;
          return 1;
        },
      });
      expect(result.success).toBe(true);
      const { done, refused } = result.result as { done: number; refused: number };
      expect(done + refused).toBe(990);
      expect(done).toBe(performed);
      // What the host itself would hold at most: calls in flight and waiting ones.
      const bound =
        DEFAULT_RUN_LIMITS.maxConcurrentCalls * DEFAULT_RUN_LIMITS.maxArgumentBytes + maxQueuedArgumentBytes(DEFAULT_RUN_LIMITS);
      expect(done * MIB).toBeLessThanOrEqual(bound);
      // Unbounded, every frame of the slice would be queued in the worker (~1.1 GB) outside the isolate's 128 MB heap.
      expect(peakMemoryOf(pid as number)).toBeLessThan(600 * MIB);
    } finally {
      await sandbox.close();
    }
  }, 180_000);
});

describe('what a program puts in a frame of its own worker', () => {
  /**
   * Runs `attack` while another run of the same worker waits in a call, and returns both outcomes:
   * whatever the attacker did, the other run must end normally and the worker must stay.
   */
  async function besideAVictim(
    attack: (sandbox: WorkerSandbox) => Promise<RunResult>,
  ): Promise<{ attacker: RunResult; victim: RunResult; samePid: boolean }> {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      const before = sandbox.pids();
      let called!: () => void;
      const inCall = new Promise<void>((resolve) => (called = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const victim = sandbox.run("import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });", {
        check: false,
        onCall: async () => {
          called();
          await released;
          return 3;
        },
      });
      await inCall;
      const attacker = await attack(sandbox);
      release();
      return { attacker, victim: await victim, samePid: JSON.stringify(sandbox.pids()) === JSON.stringify(before) };
    } finally {
      await sandbox.close();
    }
  }

  it('an import of a 3 MB name fails its own run only, checked or not (the link error no longer makes a frame past the limit)', async () => {
    const code = `import x from '@capabilities/${'a'.repeat(3_000_000)}';\nreturn x;`;
    for (const check of [false, true]) {
      const { attacker, victim, samePid } = await besideAVictim((sandbox) =>
        sandbox.run(code, { check, onCall: createFixtureHost().onCall }),
      );
      expect(attacker.success, `check: ${check}`).toBe(false);
      expect(attacker.error?.code).toMatch(check ? /^TYPE_CHECK_FAILED$/ : /^(IMPORT_REFUSED|MODULE_NOT_FOUND)$/);
      expect(victim, `check: ${check}`).toMatchObject({ success: true, result: 3 });
      expect(samePid).toBe(true);
      // Cut to what the host keeps of a reported error (64 Ki characters), plus the host's "did you mean".
      if (!check) expect(attacker.error?.message.length).toBeLessThan(100_000);
    }
  }, 120_000);

  it('a call whose capability or function name is longer than a header allows is refused for that call only', async () => {
    const code = [
      "import * as math from '@capabilities/math';",
      'const host = (globalThis as unknown as { __agentSpaces: { call(c: string, f: string, a: unknown): Promise<unknown> } }).__agentSpaces;',
      'const refused: string[] = [];',
      "for (const attempt of [() => host.call('m'.repeat(600), 'add', {}), () => host.call('math', 'f'.repeat(600), {}), () => (math as unknown as Record<string, (a: unknown) => Promise<unknown>>)['g'.repeat(600)]?.({})]) {",
      '  try { await attempt(); } catch (error) { refused.push(String((error as { code?: string }).code)); }',
      '}',
      'return refused;',
    ].join('\n');
    const { attacker, victim, samePid } = await besideAVictim((sandbox) =>
      sandbox.run(code, { check: false, onCall: createFixtureHost().onCall }),
    );
    expect(attacker.success).toBe(true);
    for (const code of attacker.result as string[]) expect(code).toMatch(/^(INVALID_ARGUMENTS|undefined)$/);
    expect((attacker.result as string[]).slice(0, 2)).toEqual(['INVALID_ARGUMENTS', 'INVALID_ARGUMENTS']);
    expect(victim).toMatchObject({ success: true, result: 3 });
    expect(samePid).toBe(true);
  }, 60_000);
});

describe('a run that ends beside one that computes', () => {
  it('a co-resident program computing right after another run ended does not get the worker killed (and every run in it)', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      const before = sandbox.pids();
      // C waits in a call the whole time: it must end normally.
      let inCall!: () => void;
      const called = new Promise<void>((resolve) => (inCall = resolve));
      let releaseC!: () => void;
      const cReleased = new Promise<void>((resolve) => (releaseC = resolve));
      const c = sandbox.run("import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });", {
        check: false,
        onCall: async () => {
          inCall();
          await cReleased;
          return 3;
        },
      });
      await called;
      // A and B get their replies in one write, so both arm a timer in the same turn: A's fires first
      // and ends A; B's then computes for 2 s, past the host's 250 ms grace for A's isolate to stop.
      let answered = 0;
      let answerBoth!: () => void;
      const both = new Promise<void>((resolve) => (answerBoth = resolve));
      const onCall = async (): Promise<number> => {
        if (++answered === 2) answerBoth();
        await both;
        return 0;
      };
      const a = sandbox.run(
        "import { add } from '@capabilities/math';\nawait add({ a: 0, b: 0 });\nawait new Promise((resolve) => setTimeout(resolve, 20));\nreturn 'a';",
        { check: false, onCall },
      );
      const b = sandbox.run(
        "import { add } from '@capabilities/math';\nawait add({ a: 0, b: 0 });\nawait new Promise((resolve) => setTimeout(resolve, 20));\nconst end = Date.now() + 2000;\nwhile (Date.now() < end) {}\nreturn 'b';",
        { check: false, onCall },
      );
      const [resultA, resultB] = await Promise.all([a, b]);
      releaseC();
      expect(resultA).toMatchObject({ success: true, result: 'a' });
      expect(resultB).toMatchObject({ success: true, result: 'b' });
      expect(await c).toMatchObject({ success: true, result: 3 });
      expect(sandbox.pids()).toEqual(before);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});

describe('a cancel beside a run that computes', () => {
  for (const transport of ['process', 'thread'] as const)
    it(`a worker that never reports a run stopped takes no new run and is still killed, once its other runs ended at their deadlines (${transport})`, async () => {
      const pool = createWorkerPoolExecutor({ workers: 1, graceMs: 10, transport, entry: { file: HOSTILE_WORKER, args: ['stuck'] } });
      try {
        await pool.ready();
        const before = pool.pids();
        const request = (runId: string) => ({
          runId,
          js: 'export default async () => 1;',
          outDir: FIXTURE_OUT_DIR,
          limits: { ...DEFAULT_RUN_LIMITS, timeoutMs: 1_000 },
        });
        const first = await pool.execute(request('first'), createFixtureHost().onCall);
        const second = pool.execute(request('second'), createFixtureHost().onCall);
        // Past the 10 ms grace of the first run (its expiry, armed earlier, runs before this continuation):
        // a run started now must not be given to the worker that may be stuck, where it would freeze too.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await new Promise((resolve) => setImmediate(resolve));
        const third = await pool.execute(request('third'), createFixtureHost().onCall);
        expect(first).toMatchObject({ success: true, result: 'stuck' });
        expect(await second).toMatchObject({ success: false, error: { code: 'TIMEOUT' } });
        // It ran in the replacement worker (whose first run reports its result).
        expect(third).toMatchObject({ success: true, result: 'stuck' });
        await pool.ready();
        expect(pool.pids()).toHaveLength(1);
        expect(pool.pids()).not.toEqual(before);
      } finally {
        await pool.close();
      }
    }, 60_000);

  it('cancelling a run while a co-resident program computes does not get the worker killed (and every run in it)', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      const before = sandbox.pids();
      const controller = new AbortController();
      let inA!: () => void;
      const aWaits = new Promise<void>((resolve) => (inA = resolve));
      const a = sandbox.run("import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });", {
        check: false,
        signal: controller.signal,
        onCall: async (_params, context) => {
          inA();
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
          return 3;
        },
      });
      await aWaits;
      // B computes for 2 s as soon as its call is answered; A is cancelled in the same moment, so the
      // worker reads A's cancel only after B's computation, past the host's grace.
      const b = sandbox.run(
        "import { add } from '@capabilities/math';\nawait add({ a: 0, b: 0 });\nconst end = Date.now() + 2000;\nwhile (Date.now() < end) {}\nreturn 'b';",
        {
          check: false,
          onCall: async () => {
            setImmediate(() => controller.abort());
            return 0;
          },
        },
      );
      const [resultA, resultB] = await Promise.all([a, b]);
      expect(resultA).toMatchObject({ success: false, error: { code: 'CANCELLED' } });
      expect(resultB).toMatchObject({ success: true, result: 'b' });
      expect(sandbox.pids()).toEqual(before);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});

describe('the error of a failed check is output too', () => {
  it('a program with 14,000 type errors gets an error within the output limit that still counts them all', async () => {
    // 14,000 diagnostics are past the 1 MiB output limit as JSON; more made the check pass its 10 s limit at CI's load.
    const code = Array.from({ length: 14_000 }, (_, index) => `const v${index}: string = 1;`).join('\n');
    const result = await healthy.run(code, { onCall: createFixtureHost().onCall, check: true });
    expect(result).toMatchObject({ success: false, error: { code: 'TYPE_CHECK_FAILED', line: 1 } });
    expect(result.error?.message).toMatch(/^the program has 14000 type error\(s\) \(the first \d+ listed\); first, line 1:/);
    expect(Buffer.byteLength(JSON.stringify(result), 'utf8')).toBeLessThanOrEqual(DEFAULT_RUN_LIMITS.maxOutputBytes);
    // A module name of 3 MB is quoted cut, not whole.
    const named = await healthy.run(`import x from '@capabilities/${'a'.repeat(3_000_000)}';\nreturn x;`, {
      onCall: createFixtureHost().onCall,
      check: true,
    });
    expect(named.error?.code).toBe('TYPE_CHECK_FAILED');
    expect(Buffer.byteLength(JSON.stringify(named), 'utf8')).toBeLessThanOrEqual(DEFAULT_RUN_LIMITS.maxOutputBytes);
  }, 120_000);
});

describe('a flood made before the check verdict', () => {
  it('a program that fails its check gets none of its thousand calls or thirty thousand log lines to the host, however early it made them', async () => {
    for (const isolation of ['worker', 'in-process'] as const) {
      const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation, workers: 1 });
      try {
        let performed = 0;
        let streamed = 0;
        const code = [
          "import { add } from '@capabilities/math';",
          'for (let i = 0; i < 1000; i++) void add({ a: i, b: 1 }).catch(() => 0);',
          "for (let i = 0; i < 30000; i++) console.log('line ' + i);",
          'const wrong: string = await add({ a: 1, b: 2 });',
          'return wrong;',
        ].join('\n');
        const result = await sandbox.run(code, {
          check: true,
          onCall: async () => {
            performed++;
            return 1;
          },
          onLog: () => {
            streamed++;
          },
        });
        expect(result, isolation).toMatchObject({ success: false, calls: 0, logs: [], error: { code: 'TYPE_CHECK_FAILED' } });
        expect(performed).toBe(0);
        expect(streamed).toBe(0);
      } finally {
        await sandbox.close();
      }
    }
  }, 120_000);
});

describe("the host's own log handler fails", () => {
  it('a throwing onLog stops the run and rejects it, in both isolation modes: no uncaught exception in the host, no host stack in the program', async () => {
    for (const isolation of ['worker', 'in-process'] as const) {
      const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation, workers: 1 });
      try {
        const seen: string[] = [];
        const code =
          "try { console.log('boom'); } catch (error) { console.log('caught ' + String((error as Error).stack)); }\nreturn 'went on';";
        const pending = sandbox.run(code, {
          check: false,
          onCall: createFixtureHost().onCall,
          onLog: (log) => {
            seen.push(log.message);
            if (log.message === 'boom') throw new Error('the host log sink is down (/srv/host/secret-path)');
          },
        });
        await expect(pending, isolation).rejects.toThrow(/host log sink is down/);
        expect(seen).toEqual(['boom']);
        expect(await sandbox.run(HEALTHY, { onCall: createFixtureHost().onCall, check: false })).toMatchObject({
          success: true,
          result: 5,
        });
      } finally {
        await sandbox.close();
      }
    }
  }, 60_000);
});

describe('an approval for a run that is over', () => {
  it('a call whose run already ended (as a held call the program did not await can be) asks no one', async () => {
    const root = await makeTempDir('attack5-approval');
    await mkdir(path.join(root, 'tools'));
    await writeFile(
      path.join(root, 'tools', 'cleanup.json'),
      JSON.stringify({
        name: 'cleanup',
        implementation: './cleanup.mjs',
        functions: [
          {
            name: 'purge',
            description: 'Purges a folder.',
            parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
            requiresApproval: true,
          },
        ],
      }),
    );
    await writeFile(path.join(root, 'tools', 'cleanup.mjs'), 'export function purge({ path }) {\n  return { purged: path };\n}\n');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['tools/*.json'] }));
    const asked: unknown[] = [];
    const events: string[] = [];
    const space = await createSpace({
      cwd: root,
      approvalHandler: async (request) => {
        asked.push(request);
        return { approved: true };
      },
      onEvent: (event) => events.push(event.type),
    });
    try {
      await space.build();
      const ended = new AbortController();
      ended.abort(new Error('the run ended'));
      const error = await space.callTool('cleanup.purge', { path: 'x' }, { signal: ended.signal }).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toMatchObject({ code: 'CANCELLED' });
      expect(asked).toEqual([]);
      expect(events).not.toContain('approval-required');
      // A live call is still asked, and performed once approved.
      expect(await space.callTool('cleanup.purge', { path: 'x' })).toEqual({ purged: 'x' });
      expect(asked).toHaveLength(1);
    } finally {
      await space.close();
    }
  }, 120_000);
});

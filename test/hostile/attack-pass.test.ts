/**
 * An attacker's pass over the rewritten boundary (bootstrap, run-in-isolate, host call gate and output
 * budget, worker pool, bridge access control). Each `it.fails` is a finding that still holds: it names
 * the finding (F1…F11, see the comment above it) and passes once the boundary is fixed — then turn it
 * into a plain `it`. The plain `it`s are attacks the boundary already stops, kept as regressions.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accessFromIds, type CallAccess, type CapabilityCallHandler } from '../../core/protocol.js';
import type { RunResult } from '../../core/run-result.js';
import { createSandbox, type WorkerSandbox } from '../../runtime/create-sandbox.js';
import type { Isolation, RunOptions, Sandbox } from '../../runtime/sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';
import { createSpace, type Space } from '../../space/index.js';
import { makeExampleSpace, REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

/** Codes only the host (runtime, bridge) decides. */
const HOST_CODES = ['TIMEOUT', 'MEMORY_LIMIT', 'CALL_LIMIT_EXCEEDED', 'INVALID_ARGUMENTS', 'OUTPUT_LIMIT', 'DEADLOCK', 'CANCELLED', 'SANDBOX_ERROR', 'SANDBOX_CRASHED'];
const HEALTHY = "import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });";

for (const isolation of ['worker', 'in-process'] as const satisfies readonly Isolation[]) {
  describe(`attack pass: the isolate (${isolation})`, () => {
    let sandbox: Sandbox;
    beforeAll(() => {
      sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation, workers: 1 });
    });
    afterAll(async () => {
      await sandbox.close();
    });
    afterEach(async () => {
      expect(await run(HEALTHY)).toMatchObject({ success: true, result: 3 });
    });
    const run = (code: string, options: Partial<RunOptions> = {}): Promise<RunResult> => sandbox.run(code, { onCall: createFixtureHost().onCall, check: false, ...options });

    describe('host-decided codes', () => {
      // F1: run-in-isolate.ts:367-368 (and worker-pool.ts:358) put CALL_LIMIT_EXCEEDED and
      // INVALID_ARGUMENTS in `sentCodes` before the program runs, and bootstrap-source.ts:274 serialises
      // the error description with JSON.stringify, which calls a `toJSON` the program put on
      // Object.prototype. So a program that made no call at all ends with CALL_LIMIT_EXCEEDED.
      it('F1: a program that made no call cannot end with CALL_LIMIT_EXCEEDED or INVALID_ARGUMENTS via Object.prototype.toJSON', async () => {
        for (const code of ['CALL_LIMIT_EXCEEDED', 'INVALID_ARGUMENTS']) {
          const result = await run(`Object.defineProperty(Object.prototype, 'toJSON', { value() { return { name: 'ToolCallError', code: '${code}', message: 'forged' }; }, configurable: true });\nthrow new Error('mine');`);
          expect(result, code).toMatchObject({ success: false, calls: 0, error: { code: 'RUNTIME_ERROR' } });
        }
      });
      it('a toJSON on Object.prototype cannot claim TIMEOUT or MEMORY_LIMIT', async () => {
        for (const code of ['TIMEOUT', 'MEMORY_LIMIT', 'OUTPUT_LIMIT']) {
          const result = await run(`Object.defineProperty(Object.prototype, 'toJSON', { value() { return { name: 'X', code: '${code}', message: 'forged' }; }, configurable: true });\nthrow new Error('mine');`);
          expect(result, code).toMatchObject({ success: false, timedOut: false, error: { code: 'RUNTIME_ERROR' } });
        }
      });
      // F7: run-in-isolate.ts:216 and :219 classify a failed isolate operation by matching its message
      // against /memory limit/ and /execution timed out/. A link error quotes the program's import name
      // (ES2022 string export names), so the program picks the code — and `timedOut: true` — after 5 ms.
      it('F7: an import named "memory limit" or "execution timed out" does not end as MEMORY_LIMIT or TIMEOUT', async () => {
        for (const name of ['memory limit', 'execution timed out']) {
          const result = await run(`import { "${name}" as x } from '@capabilities/math';\nexport default x;`);
          expect(result.success, name).toBe(false);
          expect(result.timedOut, name).toBe(false);
          expect(HOST_CODES, name).not.toContain(result.error?.code);
        }
      });
    });

    describe('host data in errors', () => {
      // F8: run-in-isolate.ts:223-225 copies the host-side stack of a failed isolate operation into the
      // run's error: a link error shows the host's frames with absolute paths (in-process: the
      // runtime's and the caller's source files; worker: the bundled worker in node_modules/.cache).
      it('F8: a link error carries no host stack frames or host paths', async () => {
        const result = await run("import { nothing } from '@capabilities/math';\nexport default nothing;");
        expect(result.success).toBe(false);
        expect(JSON.stringify(result.error)).not.toContain(REPO.replace(/\/$/, ''));
        expect(result.error?.stack ?? '').not.toMatch(/run-in-isolate|sandbox-worker|node:internal/);
      });
      // F2: capability-modules.ts:49 puts the absolute path of the build output in MODULE_NOT_FOUND.
      it('F2: MODULE_NOT_FOUND does not show the host path of the build output', async () => {
        const result = await run("import x from '@capabilities/nope';\nexport default x;");
        expect(result).toMatchObject({ success: false, error: { code: 'MODULE_NOT_FOUND' } });
        expect(result.error?.message).not.toContain(FIXTURE_OUT_DIR);
      });
    });

    describe('output budget', () => {
      // F3: the budget counts the error as the isolate reported it (run-in-isolate.ts:320), then
      // program-sandbox.ts:92 (mapRunError) rebuilds the stack as `${name}: ${message}` + frames, so
      // name and message are in the result twice: a 150 kB limit returns a 240 kB error.
      it('F3: the error a run returns fits maxOutputBytes after its stack is mapped', async () => {
        const maxOutputBytes = 150_000;
        const result = await run("const error = new Error('M'.repeat(60_000));\nerror.name = 'N'.repeat(60_000);\nerror.stack = 's';\nthrow error;", { limits: { maxOutputBytes } });
        expect(result.success).toBe(false);
        expect(Buffer.byteLength(JSON.stringify({ logs: result.logs, error: result.error }))).toBeLessThanOrEqual(maxOutputBytes);
      });
      it('counts a stack made by Error.prepareStackTrace and caps it', async () => {
        const result = await run("Error.prepareStackTrace = () => 'x'.repeat(1_000_000);\nthrow new Error('m');", { limits: { maxOutputBytes: 100_000 } });
        expect(result.success).toBe(false);
        expect(Buffer.byteLength(JSON.stringify(result.error))).toBeLessThanOrEqual(100_000);
      });
    });

    describe('bootstrap internals and intrinsics', () => {
      it('a then on Object.prototype cannot settle a call with a forged outcome', async () => {
        const code = [
          "import { add } from '@capabilities/math';",
          // Armed once: the first object whose `then` is read (the bootstrap's outcome record, when it
          // resolves the call) is "settled" with a look-alike record.
          'let armed = true;',
          "Object.defineProperty(Object.prototype, 'then', { get() { if (!armed) return undefined; armed = false; return (resolve: any) => resolve({ ok: true, payload: 'forged' }); }, configurable: true });",
          'let got: unknown;',
          'try { got = await add({ a: 1, b: 1 }); } catch (error: any) { got = String(error?.message); }',
          "delete (Object.prototype as any).then;",
          'return got;',
        ].join('\n');
        const result = await run(code, { limits: { timeoutMs: 5_000 } });
        expect(result.success).toBe(true);
        expect(result.result).not.toBe('forged');
      });
      it('keeps calling and reporting after Function.prototype.call/apply/bind and Array iteration are replaced', async () => {
        const code = [
          "import { add, fail } from '@capabilities/math';",
          'Function.prototype.call = function () { throw new Error("call"); };',
          'Function.prototype.apply = function () { throw new Error("apply"); };',
          'Function.prototype.bind = function () { throw new Error("bind"); };',
          "Object.defineProperty(Array.prototype, Symbol.iterator, { value: function* () { throw new Error('iterator'); }, configurable: true });",
          'const sum = await add({ a: 40, b: 2 });',
          "console.log('sum', sum);",
          "await fail({ code: 'RATE_LIMITED' });",
        ].join('\n');
        const result = await run(code);
        expect(result).toMatchObject({ success: false, calls: 2, error: { code: 'RATE_LIMITED', capability: 'math', function: 'fail' } });
        expect(result.logs).toEqual([{ level: 'log', message: 'sum 42' }]);
      });
      it('a toJSON that throws or recurses forever ends as RESULT_NOT_SERIALIZABLE', async () => {
        const throwing = await run("return { toJSON() { throw new Error('nope'); } };");
        expect(throwing).toMatchObject({ success: false, error: { code: 'RESULT_NOT_SERIALIZABLE' } });
        const endless = await run('const make = (): unknown => ({ toJSON: make });\nreturn make();');
        expect(endless.success).toBe(false);
        expect(['RESULT_NOT_SERIALIZABLE', 'RUNTIME_ERROR']).toContain(endless.error?.code);
      });
    });
  });
}

describe('attack pass: one worker, several runs', () => {
  const slowVictim = "import { sleep } from '@capabilities/math';\nawait sleep({ ms: 100 });\nreturn 'victim done';";

  // F4: bootstrap-source.ts:163 measures arguments by `json.length` (UTF-16 units), not UTF-8 bytes,
  // and the host's frame limit (worker-pool.ts:88/319) is 2 MiB + 64 KiB. One million U+0800
  // characters pass the check (1,000,002 < 1 MiB) but are 3 MB on the pipe: the host calls it a
  // protocol violation and SIGKILLs the worker, failing every run it holds (SANDBOX_CRASHED).
  it('F4: arguments of multi-byte characters are refused for the program only, not by killing the shared worker', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      const victim = sandbox.run(slowVictim, { onCall: createFixtureHost().onCall });
      const attacker = sandbox.run("import { echo } from '@capabilities/math';\nconst value = '\\u0800'.repeat(1_000_000);\ntry { await echo({ value }); return 'sent'; } catch (error: any) { return error.code; }", { onCall: createFixtureHost().onCall });
      const [victimResult, attackerResult] = await Promise.all([victim, attacker]);
      // Today: both end with SANDBOX_CRASHED ("broke the host protocol (a frame of 3000129 bytes …)").
      expect(victimResult).toMatchObject({ success: true, result: 'victim done' });
      expect(attackerResult).toMatchObject({ success: true, result: 'INVALID_ARGUMENTS' });
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  // F9: sandbox workers run isolates on their main thread (sandbox-worker.ts:17, THREADING
  // 'caller'), 8 runs per worker by default. A program that computes holds the thread for its whole
  // timeout: a co-resident run's 100 ms call cannot be answered, and the host backstop ends it as
  // TIMEOUT with timedOut: true. (Since attack pass 5, H6, the worker is no longer killed while the
  // attacker still runs: the attacker ends with its own TIMEOUT.) Known limit, docs/SECURITY.md.
  it.fails('F9: a program that computes does not make a co-resident run time out', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      // The victim's call is answered only after the attacker has made its own call, the line before its
      // loop: the answer then reaches a worker whose thread the attacker holds, whatever the machine's speed.
      let attackerCalled!: () => void;
      const attackerStarted = new Promise<void>((resolve) => (attackerCalled = resolve));
      const victimHost = createFixtureHost();
      const victim = sandbox.run(slowVictim, { onCall: async (params, context) => { await attackerStarted; return victimHost.onCall(params, context); }, limits: { timeoutMs: 2_000 } });
      const attackerHost = createFixtureHost();
      const attacker = sandbox.run("import { add } from '@capabilities/math';\nawait add({ a: 1, b: 1 });\nwhile (true) {}", {
        onCall: async (params, context) => { const value = await attackerHost.onCall(params, context); attackerCalled(); return value; },
        limits: { timeoutMs: 6_000 },
      });
      const [victimResult, attackerResult] = await Promise.all([victim, attacker]);
      expect(victimResult).toMatchObject({ success: true, timedOut: false, result: 'victim done' });
      expect(attackerResult).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  it('a V8 fatal error in a worker costs that worker only; the host survives and the pool recovers', async () => {
    const sandbox: WorkerSandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      const before = sandbox.pids();
      // "Fatal JavaScript invalid size error" (crbug.com/1201626): an abort, not a catchable limit.
      const result = await sandbox.run("return 'ab'.repeat(2 ** 27).split('').length;", { onCall: createFixtureHost().onCall });
      expect(result).toMatchObject({ success: false, error: { code: 'SANDBOX_CRASHED' } });
      await sandbox.ready();
      expect(sandbox.pids().filter((pid) => !before.includes(pid))).toHaveLength(1);
      expect(await sandbox.run(HEALTHY, { onCall: createFixtureHost().onCall })).toMatchObject({ success: true, result: 3 });
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  // F10: worker-pool.ts:149 spawns sandbox workers without `env`, so each worker — the process that
  // runs hostile code — holds the host's whole environment (model keys, MCP server secrets). An
  // isolated-vm escape or a leak through the worker's stderr/crash message then reaches them.
  it('F10: a sandbox worker does not inherit the host environment (secrets)', async () => {
    process.env['ATTACK_PASS_SECRET'] = 'sk-attack-pass-0123456789';
    const sandbox: WorkerSandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      const environ = readFileSync(`/proc/${sandbox.pids()[0]}/environ`, 'utf8');
      expect(environ).not.toContain('sk-attack-pass-0123456789');
    } finally {
      delete process.env['ATTACK_PASS_SECRET'];
      await sandbox.close();
    }
  });
});

describe('attack pass: host resources', () => {
  // F6: call-gate.ts:99-100 parses and queues every accepted call's arguments while at most
  // maxConcurrentCalls run: a program holds ONE 150 kB string and sends it 1000 times; the host keeps
  // 1000 parsed copies (~145 MB here; with the defaults, 1000 × 1 MiB = 1 GiB per run). The isolate's
  // memory limit does not see them.
  it('F6: calls waiting for a slot do not hold their arguments on the host beyond a bound', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process' });
    try {
      let release!: () => void;
      const slot = new Promise<void>((resolve) => (release = resolve));
      const onCall: CapabilityCallHandler = async () => {
        await slot;
        return 1;
      };
      const before = process.memoryUsage().heapUsed;
      let held = 0;
      const code = [
        "import { echo } from '@capabilities/math';",
        "const value = 'x'.repeat(150_000);",
        'const pending: Promise<unknown>[] = [];',
        'for (let i = 0; i < 1000; i++) pending.push(echo({ value }));',
        "console.log('all sent');",
        'await Promise.allSettled(pending);',
        'return 1;',
      ].join('\n');
      const result = await sandbox.run(code, {
        onCall,
        limits: { maxConcurrentCalls: 1, timeoutMs: 20_000 },
        onLog: () => {
          setTimeout(() => {
            held = process.memoryUsage().heapUsed - before;
            release();
          }, 200);
        },
      });
      expect(result.success).toBe(true);
      expect(held).toBeLessThan(48 * 1024 * 1024);
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  // F5: in-process isolation runs isolates in the host process, and some allocations abort V8
  // outright instead of hitting the isolate's memory limit (measured, default 128 MB limit: a Map of
  // 2^25 entries → "CALL_AND_RETRY_LAST" heap OOM at ~56 MB; 'ab'.repeat(2**27).split('') → "Fatal
  // JavaScript invalid size error"). The threat model: "In any mode, no program may end the host
  // process". The child below is such a host; it dies with SIGTRAP/SIGABRT instead of reporting.
  it.fails('F5: an in-process run cannot abort the host process', async () => {
    const dir = await makeTempDir('attack-pass-host');
    const script = path.join(dir, 'host.mts');
    const url = (file: string): string => pathToFileURL(path.join(REPO, file)).href;
    await writeFile(script, [
      `import { createSandbox } from ${JSON.stringify(url('runtime/create-sandbox.ts'))};`,
      `import { createFixtureHost, FIXTURE_OUT_DIR } from ${JSON.stringify(url('runtime/sandbox.contract.ts'))};`,
      "const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process' });",
      "const result = await sandbox.run(\"return 'ab'.repeat(2 ** 27).split('').length;\", { onCall: createFixtureHost().onCall });",
      "process.stdout.write('REPORTED ' + JSON.stringify(result.error?.code));",
      'await sandbox.close();',
    ].join('\n'));
    const outcome = await new Promise<{ code: number | null; signal: string | null; stdout: string }>((resolve) => {
      execFile(process.execPath, ['--no-node-snapshot', '--import', 'tsx', script], { cwd: REPO, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
        const failed = error as (Error & { code?: number | string; signal?: string }) | null;
        resolve({ code: typeof failed?.code === 'number' ? failed.code : failed ? null : 0, signal: failed?.signal ?? null, stdout });
      });
    });
    expect(outcome.signal).toBeNull();
    expect(outcome.stdout).toMatch(/^REPORTED "/);
  }, 120_000);
});

describe('attack pass: access control', () => {
  let space: Space;
  const access: CallAccess = accessFromIds(['crm.searchCustomers', 'crm.listTickets'], 'this task');
  beforeAll(async () => {
    const made = await makeExampleSpace('attack-pass');
    Object.assign(process.env, made.env);
    space = await createSpace({ cwd: made.root, approvalHandler: async () => ({ approved: true }) });
    expect((await space.build()).errors).toEqual([]);
  }, 120_000);
  afterAll(async () => {
    await space.close();
  });

  it('a hidden function stays refused when called by its tool name or with resultMode full', async () => {
    const specs = await space.capabilities();
    const createTicket = specs.find((spec) => spec.module === 'crm')?.functions.find((fn) => fn.name === 'createTicket');
    expect(createTicket).toBeDefined();
    for (const name of new Set([createTicket?.name, createTicket?.toolName])) {
      for (const mode of ['value', 'full']) {
        const result = await space.run(`return await (globalThis as any).__agentSpaces.call('crm', ${JSON.stringify(name)}, { customerId: 'c-001', subject: 'x', priority: 'low' }, '${mode}');`, { access, check: false });
        expect(result, `${name} ${mode}`).toMatchObject({ success: false, error: { code: 'ACCESS_DENIED' } });
      }
    }
  });
  // F2 (access side): capability-modules.ts:49/58-64 list every module of the build in
  // MODULE_NOT_FOUND, whatever the run's access — and a hidden module links fine. The bridge hides
  // them (UNKNOWN_CAPABILITY lists only visible modules); the runtime gives them away.
  it('F2: an unknown import does not list the modules hidden from the run', async () => {
    const result = await space.run("import x from '@capabilities/zzz';\nexport default x;", { access, check: false });
    expect(result).toMatchObject({ success: false, error: { code: 'MODULE_NOT_FOUND' } });
    expect(result.error?.message).not.toMatch(/notes|std-fs|train-schedule|get-weather|mcp-stations/);
  });
  // F11: space.run type-checks (check: true by default) against the declarations of the whole build,
  // so TypeScript's "Did you mean …?" named a function the run may not call; a narrowed run's
  // diagnostics now lose such suggestions (runtime/program-sandbox.ts), and keep the others.
  it('F11: the type-check of a narrowed run does not suggest hidden functions', async () => {
    const result = await space.run("import { createTicke } from '@capabilities/crm';\nreturn createTicke;", { access });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error)).not.toContain('createTicket');
    // A visible function is still suggested.
    const visible = await space.run("import { listTicket } from '@capabilities/crm';\nreturn listTicket;", { access });
    expect(visible.error?.message).toContain("Did you mean 'listTickets'?");
  }, 120_000);
});

/**
 * The thread placement (`isolation: 'thread'`: sandbox isolates on a worker thread of the host's
 * process, frames over its port, runtime/worker-pool/thread-transport.ts) against a hostile program and a
 * lying thread. A program: output of multi-byte characters and lone surrogates (counted in UTF-16 units
 * in the isolate, in UTF-8 bytes at the port), memory and CPU exhaustion, a search of everything it can
 * reach for the host's environment. Each runs beside a co-resident run on the same thread, which must
 * finish, and the thread must be kept (a program's failure is its own). A thread that lies about its own
 * channel (test/hostile/__fixtures__/lying-thread.mjs): the shared counter of what it took, frames that
 * carry shared memory or a port, a sparse list, results for runs it never got. Frames past the cap,
 * malformed headers, floods and the thread's environment are in hostile-worker.test.ts (both transports).
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/run-result.js';
import { createSandbox, type WorkerSandbox } from '../../runtime/create-sandbox.js';
import { DEFAULT_RUN_LIMITS } from '../../runtime/sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';
import { createWorkerPoolExecutor } from '../../runtime/worker-pool/worker-pool.js';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

const SECRET = 'sk-thread-host-only-4b1d';
// Set before any thread starts: a thread's environment is made when it starts.
process.env['AGENT_SPACES_THREAD_TEST_SECRET'] = SECRET;
afterAll(() => {
  delete process.env['AGENT_SPACES_THREAD_TEST_SECRET'];
});

/** A run that waits on a call, so that it is on the thread while the attacker runs. */
const VICTIM = "import { sleep } from '@capabilities/math';\nawait sleep({ ms: 300 });\nreturn 'victim done';";

let sandbox: WorkerSandbox;
beforeAll(async () => {
  sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'thread', workers: 1 });
  await sandbox.ready();
});
afterAll(async () => {
  await sandbox.close();
});

/** Runs `code` beside a victim on the one thread; the victim must finish and the thread be kept. */
async function besideVictim(code: string, limits: { timeoutMs?: number; memoryLimitMb?: number } = {}): Promise<RunResult> {
  const threads = sandbox.pids();
  const host = createFixtureHost();
  let victimCalled!: () => void;
  const called = new Promise<void>((resolve) => (victimCalled = resolve));
  const victim = sandbox.run(VICTIM, {
    check: false,
    onCall: (params, context) => {
      victimCalled();
      return host.onCall(params, context);
    },
  });
  // The attacker starts once the victim waits on its call (it is then on the thread).
  await called;
  const attacker = await sandbox.run(code, { check: false, onCall: createFixtureHost().onCall, limits });
  expect(await victim).toMatchObject({ success: true, result: 'victim done' });
  expect(sandbox.pids()).toEqual(threads);
  return attacker;
}

describe('a program on a sandbox thread', () => {
  it('output of multi-byte characters past the limits fails its own run only (UTF-16 units in the isolate, UTF-8 bytes at the port)', async () => {
    // 760,000 euro signs: 0.76 Mi units, 2.28 MB of UTF-8, past the 2 MiB + 64 KiB frame cap.
    const euros = "'\\u20ac'.repeat(760_000)";
    expect(await besideVictim(`console.log(${euros});\nreturn 'logged';`)).toMatchObject({
      success: false,
      error: { code: 'OUTPUT_LIMIT' },
    });
    expect(await besideVictim(`return ${euros};`)).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
    const thrown = await besideVictim(`throw new Error(${euros});`);
    expect(thrown).toMatchObject({ success: false, error: { code: 'RUNTIME_ERROR' } });
    expect(Buffer.byteLength(JSON.stringify(thrown.error), 'utf8')).toBeLessThanOrEqual(DEFAULT_RUN_LIMITS.maxOutputBytes + 64 * 1024);
    // Four-byte characters (two units each), logged line after line.
    const globes = await besideVictim("for (let i = 0; i < 40; i++) console.log('\\u{1F30D}'.repeat(100_000));\nreturn 1;");
    expect(globes).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
    // Arguments: 400,000 euro signs are 1.2 MB of JSON, past the 1 MiB a call may carry.
    const argument = await besideVictim(
      "import { echo } from '@capabilities/math';\ntry { return await echo({ value: '\\u20ac'.repeat(400_000) }); } catch (error: any) { return error.code; }",
    );
    expect(argument).toMatchObject({ success: true, result: 'INVALID_ARGUMENTS' });
    // Just under the output limit in bytes, over it in nothing: delivered whole.
    const near = await besideVictim("return '\\u20ac'.repeat(349_000);");
    expect(near).toMatchObject({ success: true });
    expect(near.result).toBe('\u20ac'.repeat(349_000));
  });

  it('lone surrogates in logs, results, errors, keys and arguments do not break the port (a pipe could not carry them as UTF-8)', async () => {
    const logged = await besideVictim("console.log('a\\ud800b', { ['\\udc00k']: '\\ud800' });\nreturn 'a\\udfffb';");
    expect(logged).toMatchObject({ success: true, result: 'a\udfffb' });
    // A log line is text made well-formed (U+FFFD); a result or an error crosses as JSON, escapes kept.
    expect(logged.logs?.[0]?.message).toContain('a\ufffdb');
    expect(await besideVictim("throw new Error('x\\ud800');")).toMatchObject({
      success: false,
      error: { code: 'RUNTIME_ERROR', message: 'x\ud800' },
    });
    const echoed = await besideVictim(
      "import { echo } from '@capabilities/math';\nreturn await echo({ value: 'a\\ud800', ['\\udc00']: 1 } as any);",
    );
    expect(echoed).toMatchObject({ success: true, result: 'a\ud800' });
  });

  it('a memory bomb ends its own run at the isolate limit; the thread and its other run go on', async () => {
    const bomb = await besideVictim("const keep: string[] = [];\nfor (let i = 0; ; i++) keep.push('x'.repeat(1024) + i);", {
      memoryLimitMb: 32,
    });
    expect(bomb).toMatchObject({ success: false, error: { code: 'MEMORY_LIMIT' } });
    const growth = await besideVictim('const all: number[][] = [];\nwhile (true) all.push(new Array(100_000).fill(1));', {
      memoryLimitMb: 32,
    });
    expect(growth).toMatchObject({ success: false, error: { code: 'MEMORY_LIMIT' } });
  });

  it("a program that never yields times out; a run on the pool's other thread finishes meanwhile", async () => {
    const two = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'thread', workers: 2, runsPerWorker: 1 });
    try {
      await two.ready();
      const threads = two.pids();
      expect(threads).toHaveLength(2);
      const spinner = two.run('while (true) {}', { check: false, onCall: createFixtureHost().onCall, limits: { timeoutMs: 3_000 } });
      const other = await two.run(VICTIM, { check: false, onCall: createFixtureHost().onCall });
      expect(other).toMatchObject({ success: true, result: 'victim done' });
      expect(await spinner).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
      // The host is alive and the pool serves runs on its threads again.
      expect(await two.run('return 6 * 7;', { check: false, onCall: createFixtureHost().onCall })).toMatchObject({
        success: true,
        result: 42,
      });
    } finally {
      await two.close();
    }
  });

  it('a hundred 8 MiB calls made in one slice do not end the host (held on the thread for one message, they passed its heap limit)', async () => {
    // In a host process of its own: past the thread's heap limit, Node terminated the thread inside an
    // isolated-vm callback, and isolated-vm aborted the whole process (an assertion, exit 134).
    const { stdout } = await inHostProcess(`
      const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'thread', workers: 1 });
      const code = [
        "import { echo } from '@capabilities/math';",
        "const big = 'x'.repeat(8 * 1024 * 1024 - 20);",
        'const all = [];',
        'for (let i = 0; i < 100; i++) all.push(echo({ value: big }).then(() => 1, () => 0));',
        'return (await Promise.all(all)).reduce((a, b) => a + b, 0);',
      ].join('\\n');
      const limits = { timeoutMs: 100000, maxArgumentBytes: 8 * 1024 * 1024, memoryLimitMb: 256 };
      const result = await sandbox.run(code, { check: false, limits, onCall: async () => 1 });
      process.stdout.write(JSON.stringify({ success: result.success, result: result.result, error: result.error?.code }));
      await sandbox.close();
    `);
    expect(JSON.parse(stdout)).toEqual({ success: true, result: 100 });
  }, 120_000);

  it('closing the sandbox while runs flood their thread with 1 MiB calls does not end the host, during the runs or after they timed out', async () => {
    // Each run's top-level loop makes its calls inside one slice, so the thread's event loop is held
    // (seconds, at its time limit) and the engine enters the thread's code from inside it at every call.
    // Node terminating the thread there aborted the host (isolated-vm's assertion, exit 134): the
    // thread is now told to stop through shared memory, stops its isolates itself and exits, and is
    // never terminated.
    const { stdout } = await inHostProcess(`
      const flood = [
        "import { echo } from '@capabilities/math';",
        "const big = 'x'.repeat(1024 * 1024 - 20);",
        'for (let i = 0; i < 1000; i++) echo({ value: big }).then(() => 1, () => 0);',
        'await new Promise(() => {});',
      ].join('\\n');
      const limits = { timeoutMs: 3000, maxArgumentBytes: 1024 * 1024, memoryLimitMb: 256 };
      const onCall = () => new Promise((resolve) => setTimeout(() => resolve(1), 50));
      const outcome = {};
      for (const when of ['during', 'after']) {
        const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'thread', workers: 1 });
        await sandbox.ready();
        let called;
        const first = new Promise((resolve) => (called = resolve));
        const runs = [];
        for (let r = 0; r < 4; r++)
          runs.push(sandbox.run(flood, { check: false, limits, onCall: (...args) => (called(), onCall(...args)) }));
        await first;
        if (when === 'during') await sandbox.close();
        const results = await Promise.all(runs);
        if (when === 'after') await sandbox.close();
        outcome[when] = [...new Set(results.map((result) => result.error?.code))].sort();
      }
      process.stdout.write(JSON.stringify(outcome));
    `);
    expect(JSON.parse(stdout)).toEqual({ during: ['SANDBOX_CLOSED'], after: ['TIMEOUT'] });
  }, 180_000);

  it('a thread asked to stop while a program computes ends by itself once the slice ends, and the host exits cleanly', async () => {
    // The thread cannot read 'stop' while the isolate computes (isolated-vm) and stops it at its next
    // interrupt check (QuickJS); it then ends by itself. Its first version called process.exit() in the
    // thread right after disposing the isolates: isolated-vm's last tasks then ran without a Node
    // environment and aborted the host (2 times in 3 with a slice of 14 s or more; never seen under 8 s).
    const { stdout } = await inHostProcess(`
      const outcome = {};
      for (const engine of ['isolated-vm', 'quickjs']) {
        const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'thread', workers: 1, engine });
        await sandbox.ready();
        const run = sandbox.run('while (true) {}', { check: false, limits: { timeoutMs: 15000 }, onCall: async () => 1 });
        await new Promise((resolve) => setTimeout(resolve, 300));
        await sandbox.close();
        outcome[engine] = (await run).error?.code;
      }
      process.stdout.write(JSON.stringify(outcome));
    `);
    expect(JSON.parse(stdout)).toEqual({ 'isolated-vm': 'SANDBOX_CLOSED', quickjs: 'SANDBOX_CLOSED' });
  }, 120_000);

  it("finds no trace of the host's environment in anything it can reach", async () => {
    // A walk of every object reachable from the global object, the names Node gives a thread, import.meta,
    // the global of a Function constructor (imports of Node modules are refused: hostile-code.test.ts).
    const code = `
const seen = new Set<unknown>();
const found: string[] = [];
const visit = (value: unknown, where: string, depth: number): void => {
  if (typeof value === 'string') { if (value.includes('sk-thread') || value.includes('AGENT_SPACES_THREAD')) found.push(where); return; }
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value) || depth > 6) return;
  seen.add(value);
  for (const key of Reflect.ownKeys(value as object)) {
    let next: unknown;
    try { next = (value as any)[key]; } catch { continue; }
    visit(next, where + '.' + String(key), depth + 1);
  }
};
visit(globalThis, 'globalThis', 0);
const names = ['process', 'require', 'module', 'workerData', 'parentPort', 'Buffer', 'SharedArrayBuffer', 'Atomics', 'WebAssembly'];
const present = names.filter((name) => (globalThis as any)[name] !== undefined);
let meta = 'none';
try { meta = JSON.stringify(Object.keys((import.meta as any) ?? {})); } catch (error) { meta = String(error); }
let viaFunction = 'none';
try { viaFunction = typeof (Function('return this')() as any).process; } catch (error) { viaFunction = String(error); }
return { found, present, meta, viaFunction };`;
    const result = await besideVictim(code);
    expect(result).toMatchObject({ success: true, result: { found: [], viaFunction: 'undefined' } });
    const { present, meta } = result.result as { present: string[]; meta: string };
    for (const name of ['process', 'require', 'module', 'workerData', 'parentPort', 'Buffer', 'SharedArrayBuffer', 'WebAssembly'])
      expect(present).not.toContain(name);
    expect(meta).not.toContain(SECRET);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });
});

/** A thread that lies about its channel (its modes: __fixtures__/lying-thread.mjs). */
const LYING_THREAD = path.join(REPO, 'test', 'hostile', '__fixtures__', 'lying-thread.mjs');

/** One run against a pool of one lying thread, then a second run (answered 1 by a thread in good order). */
async function againstLyingThread(mode: string): Promise<{ first: RunResult; second: RunResult; replaced: boolean }> {
  const pool = createWorkerPoolExecutor({ workers: 1, transport: 'thread', entry: { file: LYING_THREAD, args: [mode] } });
  try {
    await pool.ready();
    const before = pool.pids();
    const job = (runId: string, js: string) => ({
      runId,
      js,
      outDir: FIXTURE_OUT_DIR,
      limits: { ...DEFAULT_RUN_LIMITS, timeoutMs: 3_000 },
    });
    const first = await pool.execute(job(`lying-${mode}`, 'lying'), createFixtureHost().onCall);
    await pool.ready();
    const replaced = pool.pids()[0] !== before[0];
    const second = await pool.execute(job(`after-${mode}`, 'export default async () => 1;'), createFixtureHost().onCall);
    return { first, second, replaced };
  } finally {
    await pool.close();
  }
}

describe('a sandbox thread that lies about its channel', () => {
  for (const mode of ['shared-memory', 'port', 'sparse', 'numbers'])
    it(`is replaced for a message that is not frames of text (${mode}); its run fails SANDBOX_CRASHED, the next run is served`, async () => {
      const { first, second, replaced } = await againstLyingThread(mode);
      expect(first).toMatchObject({
        success: false,
        error: { code: 'SANDBOX_CRASHED', message: expect.stringContaining('broke the host protocol') },
      });
      expect(replaced).toBe(true);
      expect(second).toMatchObject({ success: true, result: 1 });
    });

  it('cannot answer or call for runs it was never sent: they are dropped, its own result stands', async () => {
    let performed = 0;
    const pool = createWorkerPoolExecutor({ workers: 1, transport: 'thread', entry: { file: LYING_THREAD, args: ['unknown-run'] } });
    try {
      await pool.ready();
      const result = await pool.execute(
        { runId: 'mine', js: 'lying', outDir: FIXTURE_OUT_DIR, limits: DEFAULT_RUN_LIMITS },
        async () => ++performed,
      );
      expect(result).toMatchObject({ success: true, result: 'mine' });
      expect(performed).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('that counts less than it took holds only its own calls: its run ends at its deadline, and the pool closes', async () => {
    let performed = 0;
    const pool = createWorkerPoolExecutor({ workers: 1, transport: 'thread', entry: { file: LYING_THREAD, args: ['counter-behind'] } });
    try {
      await pool.ready();
      const result = await pool.execute(
        {
          runId: 'held',
          js: 'lying',
          outDir: FIXTURE_OUT_DIR,
          limits: { ...DEFAULT_RUN_LIMITS, timeoutMs: 2_000 },
        },
        async () => {
          performed++;
          return 1;
        },
      );
      expect(result).toMatchObject({ success: false, error: { code: 'TIMEOUT' } });
      // The calls wait for room the thread says it never makes: none of its 200 calls is performed.
      expect(performed).toBe(0);
    } finally {
      await pool.close();
    }
  });
});

/**
 * Runs `body` (an ES module's code, with createSandbox and FIXTURE_OUT_DIR in scope) in a host process of
 * its own, which must end by itself with exit code 0 and nothing on stderr: what is tested may abort it.
 */
async function inHostProcess(body: string): Promise<{ stdout: string }> {
  const script = `
    const { createSandbox } = await import(${JSON.stringify(pathToFileURL(path.join(REPO, 'runtime', 'create-sandbox.ts')).href)});
    const { FIXTURE_OUT_DIR } = await import(${JSON.stringify(pathToFileURL(path.join(REPO, 'runtime', 'sandbox.contract.ts')).href)});
    ${body}
  `;
  // A file, not `-e`: a thread inherits the host's exec arguments.
  const file = path.join(await makeTempDir('thread-host'), 'host.mjs');
  await writeFile(file, script);
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', file], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  );
  expect({ code, signal, stderr: stderr.slice(-500) }).toEqual({ code: 0, signal: null, stderr: '' });
  return { stdout };
}

/**
 * What a program can make its own run report. Codes that mean "the host decided" (a time or memory
 * limit, a call limit, invalid arguments) are set by the host only, whatever the program puts on
 * Object.prototype or names its imports; an error carries no host stack frame or host path; the error a
 * run returns fits its output budget; and the bootstrap keeps calling and reporting after the program
 * replaced the intrinsics it can reach. In every isolation mode (worker process, sandbox thread, in-process), each case followed by a healthy run in
 * the same sandbox.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/run-result.js';
import { createSandbox } from '../../runtime/create-sandbox.js';
import type { Isolation, RunOptions, Sandbox } from '../../runtime/sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';
import { REPO } from '../support/example-space.js';

/** Codes only the host (runtime, bridge) decides. */
const HOST_CODES = [
  'TIMEOUT',
  'MEMORY_LIMIT',
  'CALL_LIMIT_EXCEEDED',
  'INVALID_ARGUMENTS',
  'OUTPUT_LIMIT',
  'DEADLOCK',
  'CANCELLED',
  'SANDBOX_ERROR',
  'SANDBOX_CRASHED',
];

const HEALTHY = "import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });";

for (const isolation of ['worker', 'thread', 'in-process'] as const satisfies readonly Isolation[]) {
  describe(`the isolate (${isolation})`, () => {
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
    const run = (code: string, options: Partial<RunOptions> = {}): Promise<RunResult> =>
      sandbox.run(code, { onCall: createFixtureHost().onCall, check: false, ...options });

    describe('host-decided codes', () => {
      // The bootstrap serialises a run's error with JSON.stringify, which calls a toJSON the program can
      // put on Object.prototype: a program that made no call must not end with a call code that way.
      it('a program that made no call cannot end with CALL_LIMIT_EXCEEDED or INVALID_ARGUMENTS via Object.prototype.toJSON', async () => {
        for (const code of ['CALL_LIMIT_EXCEEDED', 'INVALID_ARGUMENTS']) {
          const result = await run(
            `Object.defineProperty(Object.prototype, 'toJSON', { value() { return { name: 'ToolCallError', code: '${code}', message: 'forged' }; }, configurable: true });\nthrow new Error('mine');`,
          );
          expect(result, code).toMatchObject({ success: false, calls: 0, error: { code: 'RUNTIME_ERROR' } });
        }
      });
      it('a toJSON on Object.prototype cannot claim TIMEOUT or MEMORY_LIMIT', async () => {
        for (const code of ['TIMEOUT', 'MEMORY_LIMIT', 'OUTPUT_LIMIT']) {
          const result = await run(
            `Object.defineProperty(Object.prototype, 'toJSON', { value() { return { name: 'X', code: '${code}', message: 'forged' }; }, configurable: true });\nthrow new Error('mine');`,
          );
          expect(result, code).toMatchObject({ success: false, timedOut: false, error: { code: 'RUNTIME_ERROR' } });
        }
      });
      // The host classifies a failed isolate operation; a link error quotes the program's import name
      // (ES2022 string export names), which must not pick the code — or `timedOut: true` — for the host.
      it('an import named "memory limit" or "execution timed out" does not end as MEMORY_LIMIT or TIMEOUT', async () => {
        for (const name of ['memory limit', 'execution timed out']) {
          const result = await run(`import { "${name}" as x } from '@capabilities/math';\nexport default x;`);
          expect(result.success, name).toBe(false);
          expect(result.timedOut, name).toBe(false);
          expect(HOST_CODES, name).not.toContain(result.error?.code);
        }
      });
    });

    describe('host data in errors', () => {
      // A failed isolate operation has a host-side stack (the runtime's source files, or the bundled
      // worker): the program must see none of its frames or paths.
      it('a link error carries no host stack frames or host paths', async () => {
        const result = await run("import { nothing } from '@capabilities/math';\nexport default nothing;");
        expect(result.success).toBe(false);
        expect(JSON.stringify(result.error)).not.toContain(REPO.replace(/\/$/, ''));
        expect(result.error?.stack ?? '').not.toMatch(/run-in-isolate|sandbox-worker|node:internal/);
      });
      // Where the build output lives on the host is none of the program's business.
      it('MODULE_NOT_FOUND does not show the host path of the build output', async () => {
        const result = await run("import x from '@capabilities/nope';\nexport default x;");
        expect(result).toMatchObject({ success: false, error: { code: 'MODULE_NOT_FOUND' } });
        expect(result.error?.message).not.toContain(FIXTURE_OUT_DIR);
      });
    });

    describe('output budget', () => {
      // The host rebuilds a failed run's stack as `${name}: ${message}` + frames, so name and message are
      // in the result twice: the budget must hold for the error as returned, not as the isolate reported it.
      it('the error a run returns fits maxOutputBytes after its stack is mapped', async () => {
        const maxOutputBytes = 150_000;
        const result = await run(
          "const error = new Error('M'.repeat(60_000));\nerror.name = 'N'.repeat(60_000);\nerror.stack = 's';\nthrow error;",
          { limits: { maxOutputBytes } },
        );
        expect(result.success).toBe(false);
        expect(Buffer.byteLength(JSON.stringify({ logs: result.logs, error: result.error }))).toBeLessThanOrEqual(maxOutputBytes);
      });
      it('counts a stack made by Error.prepareStackTrace and caps it', async () => {
        const result = await run("Error.prepareStackTrace = () => 'x'.repeat(1_000_000);\nthrow new Error('m');", {
          limits: { maxOutputBytes: 100_000 },
        });
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
          'delete (Object.prototype as any).then;',
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

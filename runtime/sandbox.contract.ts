/**
 * The contract every Sandbox implementation passes (run by one *.test.ts per implementation).
 * The host side is a real CapabilityCallHandler over the hand-written build in __fixtures__/build.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolCallError } from '../core/errors.js';
import type { CallContext, CapabilityCallHandler, CapabilityCallParams } from '../core/protocol.js';
import type { RunLog } from '../core/run-result.js';
import type { EngineChoice, EngineName, EnginePlacement } from './engine.js';
import { ENGINE_CHOICES, ENGINE_NAMES } from './engines.js';
import type { Sandbox } from './sandbox.js';

export const FIXTURE_OUT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'build');

export interface RecordedCall {
  params: CapabilityCallParams;
  start: number;
  end?: number;
  aborted?: boolean;
}

/** The fixture host: `math.*` and `crm.*`, recording every call it performs. */
export function createFixtureHost(): { onCall: CapabilityCallHandler; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const onCall: CapabilityCallHandler = async (params, context: CallContext) => {
    const record: RecordedCall = { params, start: performance.now() };
    calls.push(record);
    const args = (params.args ?? {}) as Record<string, unknown>;
    try {
      switch (`${params.capability}.${params.function}`) {
        case 'math.add':
          return Number(args['a']) + Number(args['b']);
        case 'math.echo':
          return args['value'];
        case 'math.sleep':
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Number(args['ms']));
            context.signal.addEventListener(
              'abort',
              () => {
                record.aborted = true;
                clearTimeout(timer);
                resolve();
              },
              { once: true },
            );
          });
          return args['ms'];
        case 'math.fail':
          throw new ToolCallError(String(args['code']) as ToolCallError['code'], String(args['message'] ?? 'failed on purpose'), params);
        case 'crm.getCustomer':
          return { id: args['id'], name: 'Ada', email: 'ada@example.com' };
        case 'crm.deleteCustomer':
          throw new ToolCallError('APPROVAL_DENIED', 'call to crm.deleteCustomer was denied: no approval handler', params);
        default:
          throw new ToolCallError('UNKNOWN_FUNCTION', `no function ${params.capability}.${params.function}`, params);
      }
    } finally {
      record.end = performance.now();
    }
  };
  return { onCall, calls };
}

/**
 * The engine the contract runs on where a test file does not name one: `AGENT_SPACES_ENGINE`
 * (`auto`, `isolated-vm`, `quickjs`; default `auto`), so CI can run the whole contract on one engine.
 */
export function contractEngine(): EngineChoice {
  const engine = process.env['AGENT_SPACES_ENGINE'] ?? 'auto';
  if (!(ENGINE_CHOICES as readonly string[]).includes(engine))
    throw new Error(`AGENT_SPACES_ENGINE must be one of ${ENGINE_CHOICES.join(', ')} (got ${engine})`);
  return engine as EngineChoice;
}

/** Every placement a sandbox has: a worker process, a thread of the host's process, the host's own process. */
export const CONTRACT_PLACEMENTS: readonly EnginePlacement[] = ['in-process', 'worker', 'thread'];

/** Every engine × placement the contract runs on: each registered engine in every placement, or only `AGENT_SPACES_ENGINE`'s when it is set. */
export function contractMatrix(): { engine: EngineName; placement: EnginePlacement }[] {
  const choice = contractEngine();
  const engines = choice === 'auto' ? ENGINE_NAMES : [choice];
  return engines.flatMap((engine) => CONTRACT_PLACEMENTS.map((placement) => ({ engine, placement })));
}

/**
 * `engine`: the engine the sandbox runs (`auto` as it resolves here). Engines differ in one thing the
 * contract looks at: the column an error points to (V8 points at \`new\`, QuickJS near the call), so
 * only V8's columns are held exactly (the engine a run names in its result); the line is held for every engine.
 */
export function describeSandboxContract(name: string, makeSandbox: () => Sandbox | Promise<Sandbox>, engine: EngineChoice = 'auto'): void {
  describe(`Sandbox contract: ${name}`, () => {
    let exactColumns = engine === 'isolated-vm';
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await makeSandbox();
      // `auto`: the engine it resolved to, as the sandbox says.
      if (engine === 'auto')
        exactColumns = (await sandbox.run('return 1', { onCall: createFixtureHost().onCall })).engine?.name === 'isolated-vm';
    });
    afterAll(async () => {
      await sandbox.close();
    });
    const run = (code: string, options: Partial<Parameters<Sandbox['run']>[1]> = {}) => {
      const host = createFixtureHost();
      return sandbox.run(code, { onCall: host.onCall, ...options }).then((result) => ({ ...result, host }));
    };
    /** A sandbox of its own, closed afterwards: its first check loads the checker (hundreds of ms). */
    const inFreshSandbox = async (test: (fresh: Sandbox) => Promise<void>): Promise<void> => {
      const fresh = await makeSandbox();
      try {
        await test(fresh);
      } finally {
        await fresh.close();
      }
    };

    describe('results', () => {
      it('takes the awaited export default value', async () => {
        const result = await run('const x: number = 20;\nexport default Promise.resolve({ answer: x + 22 });');
        expect(result).toMatchObject({ success: true, result: { answer: 42 }, timedOut: false, calls: 0 });
      });
      it('calls a default-exported function and takes its awaited value', async () => {
        const result = await run('export default async function main() {\n  return helper() * 2;\n}\nfunction helper() { return 21; }');
        expect(result.result).toBe(42);
      });
      it('accepts a snippet with a top-level return', async () => {
        const result = await run('const items = [1, 2, 3];\nif (items.length > 2) {\n  return items.map((n) => n * 2);\n}\nreturn [];');
        expect(result).toMatchObject({ success: true, result: [2, 4, 6] });
      });
      it('gives null for a program without a result', async () => {
        const result = await run('const x = 1;');
        expect(result).toMatchObject({ success: true, result: null });
      });
      it('refuses a result that is not JSON data, naming the problem', async () => {
        const bigint = await run('return { a: { b: 10n } };');
        expect(bigint.error).toMatchObject({ code: 'RESULT_NOT_SERIALIZABLE' });
        expect(bigint.error?.message).toContain('$.a.b is a BigInt');
        const cycle = await run('const a: Record<string, unknown> = {}; a.self = a; return a;');
        expect(cycle.error?.message).toContain('$.self is a circular reference');
        const fn = await run('return { run() {} };');
        expect(fn.error?.message).toContain('$.run is a function');
      });
      it('refuses a function in the result however the program arranged Function.prototype.toJSON', async () => {
        const frozen = await run('Object.freeze(Function.prototype);\nreturn { items: [1, () => 2] };');
        expect(frozen.error).toMatchObject({ code: 'RESULT_NOT_SERIALIZABLE' });
        expect(frozen.error?.message).toContain('$.items[1] is a function');
        // The program's own toJSON for functions is honoured, as JSON.stringify honours it.
        const own = await run(
          "Object.defineProperty(Function.prototype, 'toJSON', { value: () => 'fn', configurable: false });\nreturn { run() {} };",
        );
        expect(own).toMatchObject({ success: true, result: { run: 'fn' } });
        const dated = await run("return { at: new Date(0), nested: { list: [1, 'two', null, { three: true }] } };");
        expect(dated).toMatchObject({
          success: true,
          result: { at: '1970-01-01T00:00:00.000Z', nested: { list: [1, 'two', null, { three: true }] } },
        });
      });
    });

    describe('imports', () => {
      it('resolves named, namespace and default imports of @capabilities/*', async () => {
        const code = [
          "import { add } from '@capabilities/math';",
          "import * as mathModule from '@capabilities/math';",
          "import crm from '@capabilities/crm';",
          'const a = await add({ a: 1, b: 2 });',
          'const b = await mathModule.math.add({ a: a, b: 10 });',
          "const customer = await crm.getCustomer({ id: 'c1' });",
          'return { a, b, name: customer.name };',
        ].join('\n');
        const result = await run(code);
        expect(result).toMatchObject({ success: true, result: { a: 3, b: 13, name: 'Ada' }, calls: 3 });
        expect(result.host.calls.map((call) => call.params)).toEqual([
          { capability: 'math', function: 'add', args: { a: 1, b: 2 }, resultMode: 'value' },
          { capability: 'math', function: 'add', args: { a: 3, b: 10 }, resultMode: 'value' },
          { capability: 'crm', function: 'getCustomer', args: { id: 'c1' }, resultMode: 'value' },
        ]);
      });
      it.each([
        ["import fs from 'fs';", 'fs'],
        ["import { readFile } from 'node:fs/promises';", 'node:fs/promises'],
        ["import x from './local.js';", './local.js'],
        ["import x from 'https://example.com/x.js';", 'https://example.com/x.js'],
        ["const fs = await import('fs');", 'fs'],
      ])('refuses %s naming the specifier', async (code, specifier) => {
        const result = await run(code);
        expect(result.success).toBe(false);
        expect(result.error?.code).toBe('PROGRAM_REFUSED');
        expect(result.error?.message).toContain(`"${specifier}"`);
        expect(result.error?.line).toBe(1);
      });
      it('reports an unknown capability module by its name, without host paths or the other modules', async () => {
        const result = await run("import { x } from '@capabilities/nope';\nreturn x;");
        expect(result.error).toMatchObject({ code: 'MODULE_NOT_FOUND' });
        expect(result.error?.message).toContain('"@capabilities/nope" is not in the build');
        expect(result.error?.message).not.toContain('@capabilities/math');
        expect(result.error?.message).not.toContain(FIXTURE_OUT_DIR);
      });
    });

    describe('logs and errors', () => {
      it('captures console output at every level, formatting values', async () => {
        const result = await run(
          "console.log('n', 1, { a: [1, 'x'] });\nconsole.info('i');\nconsole.warn('w');\nconsole.error(new Map([[1, 2]]));\nconsole.debug(null, undefined);",
        );
        expect(result.logs).toEqual([
          { level: 'log', message: 'n 1 { a: [ 1, "x" ] }' },
          { level: 'info', message: 'i' },
          { level: 'warn', message: 'w' },
          { level: 'error', message: 'Map(1) { 1 => 2 }' },
          { level: 'debug', message: 'null undefined' },
        ]);
      });
      it('reports a thrown error with its TypeScript line and column', async () => {
        const code =
          "interface Order { id: string }\n\nconst order: Order = { id: 'o1' };\n\nif (order.id) {\n  throw new TypeError('bad order ' + order.id);\n}";
        const result = await run(code);
        expect(result.success).toBe(false);
        expect(result.error).toMatchObject({ name: 'TypeError', message: 'bad order o1', code: 'RUNTIME_ERROR', line: 6 });
        expect(result.error?.stack).toMatch(/^TypeError: bad order o1\n/);
        if (exactColumns) {
          expect(result.error?.column).toBe(9);
          expect(result.error?.stack).toContain('program.ts:6:9');
        } else {
          expect(result.error?.stack).toMatch(/program\.ts:6:\d+/);
        }
      });
      it('keeps the line of errors after the import line of a snippet', async () => {
        const result = await run(
          "import { add } from '@capabilities/math'; const a = await add({ a: 1, b: 1 }); if (a === 2) throw new Error('two');",
        );
        expect(result.error).toMatchObject({ message: 'two', line: 1 });
        // The throw is at column 93, `new` at 99: past the import and the call either way.
        if (exactColumns) expect(result.error?.column).toBe(99);
        else expect(result.error?.column).toBeGreaterThan(80);
      });
      it('reports syntax errors with their line', async () => {
        const result = await run('const a = 1;\nconst b = ;\nreturn a;');
        expect(result.error).toMatchObject({ code: 'SYNTAX_ERROR', line: 2 });
      });
      it('reports thrown non-Error values', async () => {
        for (const value of ["'a string'", 'undefined', 'null', '{ reason: 42 }']) {
          const result = await run(`throw ${value};`);
          expect(result.success).toBe(false);
          expect(result.error?.code).toBe('RUNTIME_ERROR');
          expect(result.error?.message).toContain('non-Error value');
        }
      });
      it('turns tool errors into typed errors inside the program and in the result', async () => {
        const code = [
          "import { crm } from '@capabilities/crm';",
          'try {',
          "  await crm.deleteCustomer({ id: 'c1' });",
          '} catch (e) {',
          '  const error = e as { name: string; code: string; capability: string; function: string };',
          "  if (error.code === 'APPROVAL_DENIED') console.log('denied', error.name, error.capability, error.function);",
          '}',
          "await crm.deleteCustomer({ id: 'c2' });",
        ].join('\n');
        const result = await run(code);
        expect(result.logs).toEqual([{ level: 'log', message: 'denied ToolCallError crm deleteCustomer' }]);
        expect(result.error).toMatchObject({
          name: 'ToolCallError',
          code: 'APPROVAL_DENIED',
          capability: 'crm',
          function: 'deleteCustomer',
          line: 8,
        });
        expect(result.error?.message).toContain('denied');
      });
    });

    describe('calls', () => {
      it('runs parallel calls at the same time', async () => {
        // Each call waits until the other has reached the host: only calls that are really in flight
        // together can finish (sequential calls would never meet, and the test would time out).
        let arrived = 0;
        let bothArrived!: () => void;
        const meeting = new Promise<void>((resolve) => (bothArrived = resolve));
        const onCall: CapabilityCallHandler = async (params) => {
          arrived += 1;
          if (arrived === 2) bothArrived();
          await meeting;
          return (params.args as { ms: number }).ms;
        };
        const result = await run(
          "import { sleep } from '@capabilities/math';\nreturn await Promise.all([sleep({ ms: 1 }), sleep({ ms: 2 })]);",
          { onCall },
        );
        expect(result).toMatchObject({ success: true, result: [1, 2], calls: 2 });
      });
      it("passes copies: the host cannot change the program's objects and vice versa", async () => {
        const code =
          "import { echo } from '@capabilities/math';\nconst value = { list: [1] };\nconst back = await echo({ value }) as { list: number[] };\nback.list.push(2);\nreturn { same: back === value, original: value.list.length };";
        const result = await run(code);
        expect(result.result).toEqual({ same: false, original: 1 });
      });
    });

    describe('limits', () => {
      it('stops an infinite loop at the timeout, before any await', async () => {
        const result = await run('while (true) {}', { limits: { timeoutMs: 200 } });
        expect(result).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
      });
      it('stops a program waiting on a slow call at the timeout and aborts the call', async () => {
        // The call never ends by itself: only the run's abort signal can settle it.
        let callAborted!: () => void;
        const aborted = new Promise<void>((resolve) => (callAborted = resolve));
        const onCall: CapabilityCallHandler = (_params, context) =>
          new Promise((resolve) => {
            context.signal.addEventListener(
              'abort',
              () => {
                callAborted();
                resolve(0);
              },
              { once: true },
            );
          });
        const result = await run("import { sleep } from '@capabilities/math';\nawait sleep({ ms: 5000 });", {
          onCall,
          limits: { timeoutMs: 200 },
        });
        expect(result).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
        await aborted; // the test's own timeout fails it if the call is never aborted
      });
      it('does not count time the host holds the deadline (a person deciding an approval)', async () => {
        // The handler holds the clock for longer than the whole limit, as an approval prompt would.
        const onCall: CapabilityCallHandler = async (_params, context) => {
          const release = context.holdDeadline?.();
          await new Promise((resolve) => setTimeout(resolve, 2500));
          release?.();
          return 42;
        };
        // The limit leaves a busy machine ample time for the program's own work; the hold alone exceeds it.
        const result = await run("import { add } from '@capabilities/math';\nexport default await add({ a: 1, b: 2 });", {
          onCall,
          limits: { timeoutMs: 2000 },
        });
        expect(result).toMatchObject({ success: true, result: 42, timedOut: false });
        expect(result.durationMs).toBeGreaterThan(2400);
      });
      it('runs the clock again once the hold is released', async () => {
        const onCall: CapabilityCallHandler = async (_params, context) => {
          const release = context.holdDeadline?.();
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          release?.();
          return 1;
        };
        // The limit leaves room for the program to reach its call on a busy machine; the held 2 s do not count.
        const result = await run("import { add } from '@capabilities/math';\nawait add({ a: 1, b: 2 });\nwhile (true) {}", {
          onCall,
          limits: { timeoutMs: 1_500 },
        });
        expect(result).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
        expect(result.durationMs).toBeGreaterThan(3_400);
      });
      it('stops a program past its memory limit', async () => {
        // On QuickJS the host measures memory at the engine's interrupts, which come every few thousand
        // operations: a loop of one 100,000-element builtin per turn reaches one every ~2 GB
        // (docs/SECURITY.md), so QuickJS is held to the limit on a loop that grows in small steps.
        const code = exactColumns
          ? 'const keep: string[][] = [];\nwhile (true) keep.push(new Array(100000).fill("xxxxxxxx"));'
          : 'const keep: string[][] = [];\nwhile (true) { const row: string[] = []; for (let i = 0; i < 1000; i++) row.push("x" + i); keep.push(row); }';
        const result = await run(code, { limits: { memoryLimitMb: 16 } });
        expect(result).toMatchObject({ success: false, error: { code: 'MEMORY_LIMIT' } });
      });
      it('stops a program whose logs pass the output limit', async () => {
        const result = await run("for (let i = 0; i < 1000; i++) console.log('x'.repeat(100));", { limits: { maxOutputBytes: 5000 } });
        expect(result).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
        expect(result.logs.length).toBeLessThan(50);
      });
      it('refuses a result past the output limit', async () => {
        const result = await run("return 'x'.repeat(10000);", { limits: { maxOutputBytes: 5000 } });
        expect(result).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
      });
      it('refuses call arguments past maxArgumentBytes inside the program, without reaching the host', async () => {
        const code = [
          "import { echo } from '@capabilities/math';",
          'const codes: string[] = [];',
          // ASCII is caught before it leaves the isolate; 3-byte characters only by the host's byte count.
          "for (const value of ['x'.repeat(6000), '€'.repeat(2000)]) {",
          '  try { await echo({ value }); codes.push("ok"); } catch (e) { codes.push((e as { code: string }).code + ": " + (e as Error).message); }',
          '}',
          "return { codes, small: await echo({ value: 'fine' }) };",
        ].join('\n');
        const result = await run(code, { limits: { maxArgumentBytes: 5000 } });
        expect(result).toMatchObject({ success: true, result: { small: 'fine' } });
        const codes = (result.result as { codes: string[] }).codes;
        expect(codes).toHaveLength(2);
        for (const text of codes)
          expect(text).toMatch(
            /^INVALID_ARGUMENTS: arguments of math\.echo are .*6\d{3} bytes of JSON, over the limit of 5000 bytes per call \(sandbox\.maxArgumentBytes\)/,
          );
        expect(result.host.calls.map((call) => call.params.args)).toEqual([{ value: 'fine' }]);
      });
      it('rejects calls past maxCalls inside the program with CALL_LIMIT_EXCEEDED', async () => {
        const code =
          "import { add } from '@capabilities/math';\nlet done = 0;\ntry {\n  for (let i = 0; i < 10; i++) { await add({ a: i, b: 0 }); done++; }\n} catch (e) { return { done, code: (e as { code: string }).code }; }";
        const result = await run(code, { limits: { maxCalls: 3 } });
        expect(result).toMatchObject({ success: true, result: { done: 3, code: 'CALL_LIMIT_EXCEEDED' }, calls: 3 });
        expect(result.host.calls).toHaveLength(3);
      });
      it('queues calls past maxConcurrentCalls', async () => {
        const code =
          "import { sleep } from '@capabilities/math';\nreturn (await Promise.all(Array.from({ length: 6 }, () => sleep({ ms: 30 })))).length;";
        const result = await run(code, { limits: { maxConcurrentCalls: 2 } });
        expect(result.result).toBe(6);
        const calls = result.host.calls;
        const maxOverlap = Math.max(
          ...calls.map((call) => calls.filter((other) => other.start <= call.start && (other.end ?? Infinity) > call.start).length),
        );
        expect(maxOverlap).toBeLessThanOrEqual(2);
      });
      it('ends a program that waits on a promise nothing can settle', async () => {
        const result = await run('await new Promise(() => {});\nreturn 1;');
        expect(result).toMatchObject({ success: false, timedOut: false, error: { code: 'DEADLOCK' } });
      });
      it('ends a cancelled run with CANCELLED', async () => {
        const controller = new AbortController();
        const pending = run("import { sleep } from '@capabilities/math';\nawait sleep({ ms: 5000 });", { signal: controller.signal });
        setTimeout(() => controller.abort(), 100);
        const result = await pending;
        expect(result.error?.code).toBe('CANCELLED');
      });
      it('does not start a run cancelled during its type-check', () =>
        // A fresh sandbox: its first check loads the checker in a thread. The abort comes in a microtask
        // after run() returned, when the check has started and its verdict cannot have come back yet
        // (it needs a message from that thread): on any machine, however slow.
        inFreshSandbox(async (fresh) => {
          const host = createFixtureHost();
          const controller = new AbortController();
          const pending = fresh.run("import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });", {
            onCall: host.onCall,
            signal: controller.signal,
            check: true,
          });
          queueMicrotask(() => controller.abort());
          expect(await pending).toMatchObject({ success: false, error: { code: 'CANCELLED' } });
          expect(host.calls).toHaveLength(0);
        }));
      it('runs the next program normally after a breach', async () => {
        await run('while (true) {}', { limits: { timeoutMs: 100 } });
        const result = await run('return 1 + 1;');
        expect(result).toMatchObject({ success: true, result: 2 });
      });
    });

    describe('type check', () => {
      it("returns diagnostics with the program's lines without running", async () => {
        const code =
          "import { add } from '@capabilities/math';\nconsole.log('ran');\nconst sum: string = await add({ a: 1, b: 2 });\nreturn sum;";
        const result = await run(code, { check: true });
        expect(result).toMatchObject({ success: false, logs: [], error: { code: 'TYPE_CHECK_FAILED' } });
        expect(result.error?.diagnostics?.[0]).toMatchObject({ line: 3, code: 2322 });
      });
      it('checks top-level-return snippets like modules', async () => {
        const result = await run('return [1, 2].map((n) => n.toUpperCase());', { check: true });
        expect(result.error?.diagnostics?.[0]).toMatchObject({ line: 1, code: 2339 });
      });
      it("reports a syntax error as one, checked or not, with the checker's diagnostics", async () => {
        const result = await run('const a = 1;\nconst b = ;\nreturn a;', { check: true });
        expect(result).toMatchObject({ success: false, error: { name: 'SyntaxError', code: 'SYNTAX_ERROR', line: 2 } });
        expect(result.error?.diagnostics?.[0]).toMatchObject({ line: 2 });
      });
      it('runs a program that checks', async () => {
        const result = await run("import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });", { check: true });
        expect(result).toMatchObject({ success: true, result: 3 });
      });
      // The program starts while it is checked. A fresh sandbox's first check loads TypeScript (hundreds
      // of ms): the program reaches its call and logs long before the verdict.
      it('lets no call or log line of a program that fails its check reach the host, though it started', () =>
        inFreshSandbox(async (fresh) => {
          const host = createFixtureHost();
          const streamed: string[] = [];
          const code =
            "import { add } from '@capabilities/math';\nconsole.log('ran');\nconst sum: string = await add({ a: 1, b: 2 });\nreturn sum;";
          const result = await fresh.run(code, { onCall: host.onCall, onLog: (log) => streamed.push(log.message), check: true });
          expect(result).toMatchObject({ success: false, calls: 0, logs: [], error: { code: 'TYPE_CHECK_FAILED' } });
          expect(host.calls).toHaveLength(0);
          expect(streamed).toEqual([]);
        }));
      it('performs a call the program did not await, even when the run ended before the check passed', () =>
        inFreshSandbox(async (fresh) => {
          const host = createFixtureHost();
          const code = "import { add } from '@capabilities/math';\nvoid add({ a: 1, b: 2 });\nreturn 'done';";
          const result = await fresh.run(code, { onCall: host.onCall, check: true });
          expect(result).toMatchObject({ success: true, result: 'done', calls: 1 });
          expect(host.calls).toHaveLength(1);
        }));
      it('gives a program that passes its check its calls and log lines in order, held until the verdict', () =>
        inFreshSandbox(async (fresh) => {
          const host = createFixtureHost();
          const streamed: string[] = [];
          const code =
            "import { add } from '@capabilities/math';\nconsole.log('before');\nconst pending = add({ a: 1, b: 2 });\nconsole.log('while');\nconst sum = await pending;\nconsole.log('after ' + sum);\nreturn sum;";
          // The program starts before its check ends; its call and log lines wait for the verdict. The wait
          // counts on the run's clock (issue 28 item 9: a run's wall clock covers everything done for it),
          // so the limit is generous: the first check of a fresh sandbox loads TypeScript.
          const events: string[] = [];
          const onCall: CapabilityCallHandler = (params, context) => {
            events.push(`call ${params.function}`);
            return host.onCall(params, context);
          };
          const onLog = (log: RunLog): void => {
            events.push(`log ${log.message}`);
            streamed.push(log.message);
          };
          const result = await fresh.run(code, { onCall, onLog, check: true, limits: { timeoutMs: 120_000 } });
          expect(result).toMatchObject({ success: true, result: 3, calls: 1 });
          expect(result.logs.map((log) => log.message)).toEqual(['before', 'while', 'after 3']);
          // The host hears them in the order the program made them, the call between its two lines.
          expect(events).toEqual(['log before', 'call add', 'log while', 'log after 3']);
          expect(streamed).toEqual(['before', 'while', 'after 3']);
          expect(host.calls).toHaveLength(1);
        }));
    });

    describe('host faults', () => {
      it('rejects a run without onCall', async () => {
        await expect(sandbox.run('return 1', {} as never)).rejects.toThrow(/onCall/);
      });
      it('rejects invalid limits', async () => {
        await expect(run('return 1', { limits: { timeoutMs: -1 } })).rejects.toThrow(/timeoutMs/);
      });
    });
  });
}

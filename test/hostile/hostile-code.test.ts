/**
 * Hostile programs against the pooled isolations (worker processes, and sandbox threads of the host's
 * process): each must end with a clear result, and the host must stay healthy, which every test proves
 * by running a trivial program afterwards.
 */
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/run-result.js';
import { createSandbox, type WorkerSandbox } from '../../runtime/create-sandbox.js';
import type { RunOptions } from '../../runtime/sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR, type RecordedCall } from '../../runtime/sandbox.contract.js';

for (const isolation of ['worker', 'thread'] as const) {
  describe(`hostile code (${isolation})`, () => {
    let sandbox: WorkerSandbox;

    beforeAll(async () => {
      sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation, workers: 2 });
      await sandbox.ready();
    });
    afterAll(async () => {
      await sandbox.close();
    });
    afterEach(async () => {
      const healthy = await sandbox.run('return [1, 2].map((n) => n * 2);', { onCall: createFixtureHost().onCall });
      expect(healthy).toMatchObject({ success: true, result: [2, 4] });
    });

    async function run(code: string, options: Partial<RunOptions> = {}): Promise<RunResult & { calls_: RecordedCall[] }> {
      const host = createFixtureHost();
      const result = await sandbox.run(code, { onCall: host.onCall, ...options });
      return { ...result, calls_: host.calls };
    }

    describe('runaway code', () => {
      it('stops an infinite loop before any await', async () => {
        const result = await run('while (true) {}', { limits: { timeoutMs: 300 } });
        expect(result).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
      });
      it('stops an infinite loop after an await', async () => {
        const result = await run('await null;\nfor (;;) {}', { limits: { timeoutMs: 300 } });
        expect(result).toMatchObject({ timedOut: true, error: { code: 'TIMEOUT' } });
      });
      it('stops an infinite loop after a capability call', async () => {
        const result = await run("import { add } from '@capabilities/math';\nawait add({ a: 1, b: 1 });\nwhile (true) {}", {
          limits: { timeoutMs: 300 },
        });
        expect(result).toMatchObject({ timedOut: true, error: { code: 'TIMEOUT' }, calls: 1 });
      });
      it('reports deep recursion as a RangeError with its line', async () => {
        const result = await run('function dive(n: number): number {\n  return dive(n + 1) + 1;\n}\nreturn dive(0);');
        expect(result.error).toMatchObject({ name: 'RangeError', code: 'RUNTIME_ERROR', line: 2 });
      });
      it('times out a program stuck in native code that V8 does not interrupt, and the next run works', async () => {
        // Joining a huge array runs in C++ without interrupt checks: the isolate may keep running after the
        // timeout (then its worker is killed and replaced after the grace, as test/hostile/hostile-worker
        // shows with a worker that never reports its isolate stopped), or stop in time on a quiet machine.
        const code =
          "import { sleep } from '@capabilities/math';\nawait sleep({ ms: 5 });\nconst parts = new Array(3e7).fill('ab');\nreturn parts.join('').length;";
        const result = await run(code, { limits: { timeoutMs: 300, memoryLimitMb: 512 } });
        expect(result).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
        await sandbox.ready();
        expect(sandbox.pids()).toHaveLength(2);
      });
      // A process can be killed from outside; a thread of the host's process cannot (a thread that ends
      // mid-run is test/hostile/hostile-worker's worker that blocks its own event loop, killed by the host).
      if (isolation === 'worker')
        it('fails only its own run when a worker dies mid-run', async () => {
          // The call never ends by itself; once it reaches the host, the run is surely inside a worker.
          let callArrived!: () => void;
          const arrived = new Promise<void>((resolve) => (callArrived = resolve));
          const pending = run("import { sleep } from '@capabilities/math';\nawait sleep({ ms: 2000 });", {
            onCall: (_params, context) =>
              new Promise((resolve) => {
                callArrived();
                context.signal.addEventListener('abort', () => resolve(0), { once: true });
              }),
          });
          await arrived;
          const busy = sandbox.pids();
          for (const pid of busy) {
            // Kill the worker that is running (the idle one may be either; killing both is also fine).
            process.kill(pid, 'SIGKILL');
          }
          const result = await pending;
          expect(result).toMatchObject({ success: false, error: { name: 'SandboxError', code: 'SANDBOX_CRASHED' } });
          expect(result.error?.message).toContain('SIGKILL');
          await sandbox.ready();
        });
    });

    describe('memory bombs', () => {
      it('stops unbounded array growth at the memory limit', async () => {
        const result = await run('const hoard: number[][] = [];\nwhile (true) hoard.push(new Array(1e5).fill(7));', {
          limits: { memoryLimitMb: 32 },
        });
        expect(result).toMatchObject({ success: false, error: { code: 'MEMORY_LIMIT' } });
      });
      it('stops string doubling with a clear error', async () => {
        const result = await run("let s = 'x';\nconst keep: string[] = [];\nwhile (true) { s = s + s; keep.push(s + '!'); }", {
          limits: { memoryLimitMb: 32 },
        });
        expect(result.success).toBe(false);
        expect(['MEMORY_LIMIT', 'RUNTIME_ERROR']).toContain(result.error?.code);
        expect(result.error?.message).toMatch(/memory limit|Invalid string length/);
      });
      it('stops a growing object graph', async () => {
        const result = await run(
          'let node: Record<string, unknown> = {};\nfor (let i = 0; ; i++) node = { next: node, payload: String(i).repeat(50) };',
          { limits: { memoryLimitMb: 32 } },
        );
        expect(result).toMatchObject({ success: false, error: { code: 'MEMORY_LIMIT' } });
      });
    });

    describe('huge output', () => {
      it('stops a flood of logs at the output limit', async () => {
        const result = await run("for (let i = 0; ; i++) console.log('line', i, 'x'.repeat(200));");
        expect(result).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
        const bytes = result.logs.reduce((sum, log) => sum + Buffer.byteLength(log.message) + 1, 0);
        expect(bytes).toBeLessThanOrEqual(1024 * 1024);
      });
      it('stops a program that catches the output error and keeps logging', async () => {
        const result = await run("for (let i = 0; i < 1e6; i++) { try { console.log('x'.repeat(1000)); } catch {} }\nreturn 'done';");
        expect(result).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
      });
      it('refuses a huge result', async () => {
        const result = await run("return 'x'.repeat(5 * 1024 * 1024);");
        expect(result).toMatchObject({ success: false, result: null, error: { code: 'OUTPUT_LIMIT' } });
      });
    });

    describe('probes for ambient authority', () => {
      it('finds no process, require, fetch, setImmediate, Buffer, SharedArrayBuffer or WebAssembly', async () => {
        const names = [
          'process',
          'require',
          'module',
          'fetch',
          'setImmediate',
          'clearImmediate',
          'Buffer',
          'SharedArrayBuffer',
          'Atomics',
          'WebAssembly',
          'XMLHttpRequest',
          'Deno',
          'Bun',
        ];
        const result = await run(
          `return ${JSON.stringify(names)}.filter((name) => typeof (globalThis as Record<string, unknown>)[name] !== 'undefined');`,
        );
        expect(result).toMatchObject({ success: true, result: [] });
      });
      it('sees only standard globals, console, the Web globals it declares and the host global', async () => {
        const result = await run('return Object.getOwnPropertyNames(globalThis);');
        // A fresh V8 context of the host holds exactly the standard JavaScript globals.
        const standard = new Set(runInNewContext('Object.getOwnPropertyNames(globalThis)') as string[]);
        const extra = (result.result as string[]).filter((name) => !standard.has(name));
        // The Web globals (runtime/sandbox-globals.ts; runtime/sandbox-globals.test.ts checks them against the type check).
        const web = [
          'DOMException',
          'setTimeout',
          'setInterval',
          'clearTimeout',
          'clearInterval',
          'queueMicrotask',
          'atob',
          'btoa',
          'TextEncoder',
          'TextDecoder',
          'URLSearchParams',
          'URL',
          'structuredClone',
        ];
        expect(extra.sort()).toEqual(['__agentSpaces', ...web].sort());
        expect(result.result).toContain('console');
      });
      it('cannot reach process through Function constructors', async () => {
        const code = [
          "const viaConstructor = (() => { try { return typeof (({}).constructor.constructor('return process'))(); } catch (e) { return String(e); } })();",
          "const viaFunction = (() => { try { return typeof Function('return this')().process; } catch (e) { return String(e); } })();",
          "const viaEval = (() => { try { return typeof (0, eval)('globalThis.require'); } catch (e) { return String(e); } })();",
          'return { viaConstructor, viaFunction, viaEval };',
        ].join('\n');
        const result = await run(code);
        expect(result.result).toEqual({
          viaConstructor: 'ReferenceError: process is not defined',
          viaFunction: 'undefined',
          viaEval: 'undefined',
        });
      });
      it('refuses import("fs") statically and at run time', async () => {
        const refused = await run("const fs = await import('fs');\nreturn fs;");
        expect(refused.error).toMatchObject({ code: 'PROGRAM_REFUSED', line: 1 });
        const hidden = await run(
          "const load = (0, eval)('(s) => import(s)');\ntry { await load('fs'); return 'loaded'; } catch (e) { return String(e); }",
        );
        expect(hidden).toMatchObject({ success: true });
        expect(hidden.result).not.toBe('loaded');
      });
      it('cannot read the host callbacks behind the host global', async () => {
        const result = await run(
          'const host = (globalThis as Record<string, unknown>).__agentSpaces as object;\nreturn { keys: Object.getOwnPropertyNames(host), frozen: Object.isFrozen(host) };',
        );
        expect(result.result).toEqual({ keys: ['call'], frozen: true });
      });
    });

    describe('prototype tampering', () => {
      it('does not leak tampered prototypes into the host or the next run', async () => {
        const code = [
          "(Object.prototype as Record<string, unknown>).polluted = 'yes';",
          'Array.prototype.push = function () { return -1; };',
          'JSON.parse = () => ({ hijacked: true });',
          'return JSON.stringify({ a: 1 });',
        ].join('\n');
        const result = await run(code);
        expect(result.success).toBe(true);
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
        const next = await run(
          'const list: number[] = [];\nlist.push(1);\nreturn { polluted: ({} as Record<string, unknown>).polluted ?? null, length: list.length };',
        );
        expect(next.result).toEqual({ polluted: null, length: 1 });
      });
      it('hands results over as plain copies, even with __proto__ keys', async () => {
        const result = await run('const evil = JSON.parse(\'{"__proto__": {"admin": true}, "ok": 1}\');\nreturn evil;');
        expect(Object.getPrototypeOf(result.result)).toBe(Object.prototype);
        expect(({} as Record<string, unknown>)['admin']).toBeUndefined();
      });
      it('cannot change objects the host handed in or received', async () => {
        const shared = { list: [1, 2] };
        const onCall = async (): Promise<unknown> => shared;
        const result = await sandbox.run(
          'const value = await (globalThis as any).__agentSpaces.call("math", "echo", {}) as { list: number[] };\nvalue.list.push(3);\nObject.setPrototypeOf(value, null);\nreturn value.list.length;',
          { onCall },
        );
        expect(result.result).toBe(3);
        expect(shared).toEqual({ list: [1, 2] });
        expect(Object.getPrototypeOf(shared)).toBe(Object.prototype);
      });
    });

    describe('rejections and thrown values', () => {
      it('survives unhandled rejections (floating promises are ignored; the awaited chain decides)', async () => {
        const code =
          "import { fail } from '@capabilities/math';\nPromise.reject(new Error('floating'));\nvoid fail({ code: 'TOOL_FAILED' });\nreturn 'still here';";
        const result = await run(code);
        expect(result).toMatchObject({ success: true, result: 'still here' });
      });
      it('reports an awaited rejection with a non-Error reason', async () => {
        const result = await run("await Promise.reject('plain reason');");
        expect(result.error).toMatchObject({ code: 'RUNTIME_ERROR' });
        expect(result.error?.message).toContain('plain reason');
      });
      it.each([
        ['null', 'null'],
        ['a string', "'just a string'"],
        [
          'an object with throwing getters',
          "{ get message(): string { throw new Error('no'); }, get stack(): string { throw new Error('no'); }, get name(): string { throw new Error('no'); } }",
        ],
        [
          'an Error with throwing getters',
          "Object.defineProperties(new Error('x'), { message: { get() { throw 1; } }, name: { get() { throw 2; } }, stack: { get() { throw 3; } } })",
        ],
        [
          'a Proxy that throws on every trap',
          'new Proxy({}, { get() { throw 1; }, getPrototypeOf() { throw 2; }, ownKeys() { throw 3; }, has() { throw 4; } })',
        ],
      ])('reports throwing %s', async (_label, value) => {
        const result = await run(`throw ${value};`);
        expect(result.success).toBe(false);
        expect(result.error?.code).toBe('RUNTIME_ERROR');
        expect(typeof result.error?.message).toBe('string');
      });
    });

    describe('call floods', () => {
      it('answers a thousand concurrent calls within the concurrency limit', async () => {
        const code =
          "import { sleep } from '@capabilities/math';\nconst values = await Promise.all(Array.from({ length: 1000 }, () => sleep({ ms: 5 })));\nreturn values.length;";
        const result = await run(code, { limits: { maxCalls: 1000, maxConcurrentCalls: 100 } });
        expect(result).toMatchObject({ success: true, result: 1000, calls: 1000 });
        const calls = result.calls_;
        const maxOverlap = Math.max(
          ...calls.map((call) => calls.filter((other) => other.start <= call.start && (other.end ?? Infinity) > call.start).length),
        );
        expect(maxOverlap).toBeLessThanOrEqual(100);
      });
      it('refuses huge arguments without copying them to the host', async () => {
        // 10 calls with a 40 MB argument each would be 400 MB on the host side if they crossed. Each refusal
        // still serialises 40 MB inside the sandbox (about 1.5 s on QuickJS at load 9): the run and the test
        // get generous bounds, since what is asserted is that nothing crossed, not how fast.
        const code =
          "import { echo } from '@capabilities/math';\nconst value = 'x'.repeat(40_000_000);\nconst settled = await Promise.allSettled(Array.from({ length: 10 }, () => echo({ value })));\nreturn [...new Set(settled.map((s) => s.status === 'rejected' ? (s as PromiseRejectedResult).reason.code : 'ok'))];";
        const result = await run(code, { limits: { memoryLimitMb: 256, timeoutMs: 150_000 } });
        expect(result).toMatchObject({ success: true, result: ['INVALID_ARGUMENTS'] });
        expect(result.calls_).toHaveLength(0);
      }, 240_000);
      it('refuses deeply nested arguments with a clear error', async () => {
        const code =
          "import { echo } from '@capabilities/math';\nlet value: unknown = 1;\nfor (let i = 0; i < 100_000; i++) value = [value];\ntry { await echo({ value }); return 'sent'; } catch (e) { return (e as Error).name + ': ' + (e as Error).message; }";
        const result = await run(code);
        expect(result.success).toBe(true);
        expect(result.result).toMatch(/^(TypeError: arguments of math\.echo are not JSON-serialisable|ToolCallError: )/);
      });
      it('refuses the call past maxCalls without reaching the host', async () => {
        const code =
          "import { add } from '@capabilities/math';\nconst settled = await Promise.allSettled(Array.from({ length: 1001 }, (_, i) => add({ a: i, b: 0 })));\nreturn settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason.code);";
        const result = await run(code);
        expect(result.result).toEqual(['CALL_LIMIT_EXCEEDED']);
        expect(result.calls_).toHaveLength(1000);
      });
    });
  });
}

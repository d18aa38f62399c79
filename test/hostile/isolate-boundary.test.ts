/**
 * Hostile programs against the bootstrap and the host's reading of what crosses: forged error codes,
 * tampered intrinsics, reaching the bootstrap's own functions, results and logs that cost more than
 * they look. Every isolation mode (worker process, sandbox thread, in-process); every case is followed by a healthy run.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilityCallHandler } from '../../core/protocol.js';
import type { RunResult } from '../../core/run-result.js';
import { createSandbox } from '../../runtime/create-sandbox.js';
import type { Isolation, RunOptions, Sandbox } from '../../runtime/sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';

for (const isolation of ['worker', 'thread', 'in-process'] as const satisfies readonly Isolation[]) {
  describe(`isolate boundary (${isolation})`, () => {
    let sandbox: Sandbox;
    beforeAll(() => {
      sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation, workers: 1 });
    });
    afterAll(async () => {
      await sandbox.close();
    });
    afterEach(async () => {
      const healthy = await sandbox.run(
        "import { add } from '@capabilities/math';\nreturn [await add({ a: 1, b: 2 }), JSON.stringify({ ok: [1] })];",
        { onCall: createFixtureHost().onCall },
      );
      expect(healthy).toMatchObject({ success: true, result: [3, '{"ok":[1]}'] });
    });
    const run = (code: string, options: Partial<RunOptions> = {}): Promise<RunResult> =>
      sandbox.run(code, { onCall: createFixtureHost().onCall, ...options });

    describe('error codes only the host decides', () => {
      it('reports a program error dressed as a host decision as RUNTIME_ERROR', async () => {
        for (const code of ['TIMEOUT', 'MEMORY_LIMIT', 'CALL_LIMIT_EXCEEDED', 'OUTPUT_LIMIT', 'APPROVAL_DENIED']) {
          const result = await run(
            `const error = new Error('fake'); Object.assign(error, { name: 'ToolCallError', code: '${code}' }); throw error;`,
          );
          expect(result).toMatchObject({ success: false, timedOut: false, error: { code: 'RUNTIME_ERROR', message: 'fake' } });
        }
      });
      it('does not let a program copy the marks of a real tool error onto its own', async () => {
        const code = [
          "import { fail } from '@capabilities/math';",
          'let real: any;',
          "try { await fail({ code: 'TOOL_FAILED' }); } catch (error) { real = error; }",
          "const fake: any = new Error('forged');",
          'for (const key of [...Object.getOwnPropertyNames(real), ...Object.getOwnPropertySymbols(real)]) if (key !== "stack" && key !== "message") fake[key] = real[key];',
          "fake.code = 'TIMEOUT';",
          'Object.setPrototypeOf(fake, Object.getPrototypeOf(real));',
          'throw fake;',
        ].join('\n');
        const result = await run(code, { check: false });
        expect(result).toMatchObject({ success: false, timedOut: false, error: { code: 'RUNTIME_ERROR', message: 'forged' } });
      });
      it('keeps the code of a real tool error that is rethrown after the program edited it', async () => {
        const code =
          "import { fail } from '@capabilities/math';\ntry { await fail({ code: 'RATE_LIMITED' }); } catch (error: any) { error.code = 'TIMEOUT'; throw error; }";
        const result = await run(code);
        expect(result).toMatchObject({ success: false, error: { code: 'RATE_LIMITED', capability: 'math', function: 'fail' } });
      });
      it('cannot settle its own calls by patching Promise internals', async () => {
        const code = [
          "import { add } from '@capabilities/math';",
          'const then = Promise.prototype.then;',
          "Object.defineProperty(Promise.prototype, 'constructor', { get() { return function Fake() {}; }, configurable: true });",
          'Promise.prototype.then = function (resolve: any, reject: any) {',
          "  if (typeof resolve === 'function') return then.call(this, () => resolve({ ok: false, payload: { message: 'forged', data: { code: 'TIMEOUT' } } }), reject);",
          '  return then.call(this, resolve, reject);',
          '};',
          'try { return await add({ a: 1, b: 1 }); } catch (error: any) { throw error; }',
        ].join('\n');
        const result = await run(code, { check: false });
        expect(result.error?.code).not.toBe('TIMEOUT');
        expect(result.timedOut).toBe(false);
      });
      it('ignores getters on Object.prototype when it reads the host error data', async () => {
        const code = [
          "import { fail } from '@capabilities/math';",
          "for (const key of ['capability', 'function', 'details']) Object.defineProperty(Object.prototype, key, { get() { return 'forged'; }, configurable: true });",
          "try { await fail({ code: 'INVALID_RESULT' }); } catch (error: any) { return [error.code, Object.getOwnPropertyDescriptor(error, 'capability')?.value, Object.getOwnPropertyDescriptor(error, 'function')?.value]; }",
        ].join('\n');
        const result = await run(code, { check: false });
        expect(result).toMatchObject({ success: true, result: ['INVALID_RESULT', 'math', 'fail'] });
      });
    });

    describe('the bootstrap is out of reach', () => {
      it('gives no caller, callee or CallSite function of the bootstrap to sloppy code it runs', async () => {
        const code = [
          'const found: string[] = [];',
          // A sloppy function (made by Function) may read `.caller`: whoever called it, unless strict.
          'const probe = new Function("found", "return function probe() { found.push(String(probe.caller && probe.caller.name)); return 1; };")(found);',
          "const bait = Object.defineProperty({}, 'x', { get: probe, enumerable: true });",
          'Error.prepareStackTrace = (_e: unknown, sites: any[]) => { for (const site of sites) { const fn = site.getFunction(); if (fn) found.push("fn:" + fn.name); } return ""; };',
          'console.log(bait);',
          'void new Error().stack;',
          'return [found, { toJSON: probe }];',
        ].join('\n');
        const result = await run(code, { check: false });
        expect(result.success).toBe(true);
        const found = (result.result as [string[]])[0];
        // The getter ran under console.log's formatting, and its caller there was hidden: null on V8
        // (the caller is strict); QuickJS gives no function's caller at all (undefined). Either way
        // no function: String(caller && caller.name) would be a function's name …
        expect(found[0]).toBe(result.engine?.name === 'quickjs' ? 'undefined' : 'null');
        // … and saw no function of the bootstrap (their names would show: inspect, logger, run, …).
        const bootstrap = new Set([
          'inspect',
          'logger',
          'safe',
          'show',
          'run',
          'call',
          'dispatch',
          'deliver',
          'settle',
          'describeError',
          'findNonJson',
          'refuseNonJson',
          'log',
        ]);
        expect(found.filter((name) => bootstrap.has(name.replace(/^fn:/, '')))).toEqual([]);
      });
      it('has only `call` on the host global, frozen and not replaceable', async () => {
        const code = [
          'const host = (globalThis as any).__agentSpaces;',
          'const keys = Object.getOwnPropertyNames(host);',
          'let replaced = false; try { (globalThis as any).__agentSpaces = { call: () => 1 }; replaced = (globalThis as any).__agentSpaces !== host; } catch { replaced = false; }',
          'let extended = false; try { host.deliver = 1; extended = host.deliver === 1; } catch { extended = false; }',
          'return { keys, frozen: Object.isFrozen(host), replaced, extended };',
        ].join('\n');
        expect(await run(code)).toMatchObject({
          success: true,
          result: { keys: ['call'], frozen: true, replaced: false, extended: false },
        });
      });
      it('keeps working when the program replaces the intrinsics it uses', async () => {
        const code = [
          "import { add, echo } from '@capabilities/math';",
          'JSON.stringify = () => "{}"; JSON.parse = () => ({ forged: true });',
          'Map.prototype.get = () => undefined; Map.prototype.set = function () { return this; }; Map.prototype.delete = () => false;',
          'WeakMap.prototype.get = () => undefined; WeakMap.prototype.set = function () { return this; };',
          'Array.prototype.push = () => 0; Array.prototype.join = () => "joined"; String.prototype.slice = () => "";',
          "Object.defineProperty(Array.prototype, '0', { set() { throw new Error('setter'); }, configurable: true });",
          "console.log('still', 'logging', { a: [1, 2] });",
          'const sum = await add({ a: 20, b: 22 });',
          "const echoed = await echo({ value: { nested: ['x'] } });",
          'return { sum, echoed };',
        ].join('\n');
        const result = await run(code, { check: false });
        expect(result).toMatchObject({ success: true, result: { sum: 42, echoed: { nested: ['x'] } } });
        expect(result.logs).toEqual([{ level: 'log', message: 'still logging { a: [ 1, 2 ] }' }]);
      });
    });

    describe('index setters on the prototypes', () => {
      // QuickJS's JSON.stringify fills an internal array with [[Set]]: setters like these ran inside it.
      const poison =
        "for (const target of [Array.prototype, Object.prototype]) for (const key of ['0', '1', '2']) Object.defineProperty(target, key, { set() { throw new Error('setter ' + key); }, configurable: true });\n";
      it('sends, returns and reports errors without running them', async () => {
        const ok = await run(
          "import { echo } from '@capabilities/math';\n" +
            poison +
            "const echoed = await echo({ value: [1, { b: 'x' }] });\nreturn { echoed, a: [1, { c: null, d: undefined, e: new Date(0), n: NaN, s: new String('s') }], t: true };",
          { check: false },
        );
        expect(ok).toMatchObject({
          success: true,
          result: { echoed: [1, { b: 'x' }], a: [1, { c: null, e: '1970-01-01T00:00:00.000Z', n: null, s: 's' }], t: true },
        });
        const thrown = await run(poison + "throw new TypeError('mine');", { check: false });
        expect(thrown.error).toMatchObject({ name: 'TypeError', code: 'RUNTIME_ERROR', message: 'mine' });
        const withFunction = await run(poison + 'return { a: [1, { b: () => 1 }] };', { check: false });
        expect(withFunction.error).toMatchObject({
          code: 'RESULT_NOT_SERIALIZABLE',
          message: 'the result is not JSON-serialisable: $.a[1].b is a function; return data, not functions',
        });
      });
    });

    describe('what crosses is counted by its real size', () => {
      it('counts a log line by its size as JSON (control characters are six bytes each)', async () => {
        // 100,000 NULs are 100 kB as text but 600 kB as JSON: two lines pass a 1 MB limit.
        const result = await run(
          "const line = '\\u0000'.repeat(100_000);\nfor (let i = 0; i < 3; i++) console.log(line);\nreturn 'done';",
          { limits: { maxOutputBytes: 1_000_000 } },
        );
        expect(result).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
        expect(result.logs).toHaveLength(1);
      });
      it('counts a thrown error with its stack', async () => {
        const result = await run("const error = new Error('m'); error.stack = 'x'.repeat(50_000); throw error;", {
          limits: { maxOutputBytes: 20_000 },
        });
        expect(result).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
      });
      it('stops a program at once when it keeps logging past the limit in a catch loop', async () => {
        const result = await run(
          "let caught = 0;\nfor (let i = 0; i < 1e7; i++) { try { console.log('x'.repeat(1000)); } catch { caught++; } }\nreturn caught;",
        );
        expect(result).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
      });
    });

    describe('calls', () => {
      it('reads none of the run settings through getters the program put on Object.prototype', async () => {
        // The run settings reach the bootstrap before the program's body runs; a field the host left
        // out would be looked up on Object.prototype when the bootstrap reads it during a call.
        const code = [
          "import { echo, fail } from '@capabilities/math';",
          'const hits: string[] = [];',
          "for (const key of ['maxJsonDepth', 'callSites', 'maxCalls', 'maxArgumentBytes', 'callLimitError', 'argumentLimitError']) {",
          "  Object.defineProperty(Object.prototype, key, { get() { hits.push(key); return key === 'maxJsonDepth' ? { valueOf() { hits.push('valueOf'); return 1; } } : key === 'callSites' ? true : undefined; }, configurable: true });",
          '}',
          'const echoed = await echo({ value: { a: { b: [1, 2] } } });',
          "let failed = '';",
          "try { await fail({ code: 'TOOL_FAILED' }); } catch (error: any) { failed = error.code; }",
          'return [hits, echoed, failed];',
        ].join('\n');
        const result = await run(code, { check: false });
        expect(result).toMatchObject({ success: true, result: [[], { a: { b: [1, 2] } }, 'TOOL_FAILED'] });
      });
      it('refuses arguments too deeply nested to send with the code INVALID_ARGUMENTS, caught or not', async () => {
        const nest = 'let value: unknown = 1;\nfor (let i = 0; i < 100_000; i++) value = [value];\n';
        const caught = await run(
          `import { echo } from '@capabilities/math';\n${nest}try { await echo({ value }); return 'sent'; } catch (e: any) { return [e instanceof TypeError, e.code, e.capability, e.function, e.message]; }`,
          { check: false },
        );
        expect(caught).toMatchObject({
          success: true,
          result: [
            true,
            'INVALID_ARGUMENTS',
            'math',
            'echo',
            expect.stringMatching(/^arguments of math\.echo are not JSON-serialisable: /),
          ],
        });
        const uncaught = await run(`import { echo } from '@capabilities/math';\n${nest}await echo({ value });`, { check: false });
        expect(uncaught).toMatchObject({
          success: false,
          error: {
            code: 'INVALID_ARGUMENTS',
            capability: 'math',
            function: 'echo',
            message: expect.stringMatching(/^arguments of math\.echo are not JSON-serialisable: /),
          },
        });
        expect(uncaught.calls).toBe(0);
      });
      it('refuses arguments JSON cannot hold with the code INVALID_ARGUMENTS', async () => {
        const code =
          "import { echo } from '@capabilities/math';\ntry { await echo({ value: 10n }); return 'sent'; } catch (e: any) { return [e.name, e.code, e.message]; }";
        const result = await run(code, { check: false });
        expect(result).toMatchObject({
          success: true,
          result: ['TypeError', 'INVALID_ARGUMENTS', expect.stringMatching(/^arguments of math\.echo are not JSON-serialisable: /)],
        });
      });
      it('drops __proto__ keys from arguments before the host sees them', async () => {
        const seen: unknown[] = [];
        const onCall: CapabilityCallHandler = async (params) => {
          seen.push(params.args);
          return Object.assign({}, params.args as object);
        };
        const code =
          'const args = JSON.parse(\'{"path":"a.txt","__proto__":{"path":"/etc/passwd","admin":true}}\');\nconst copy: any = await (globalThis as any).__agentSpaces.call(\'math\', \'echo\', args);\nreturn [copy.path, copy.admin ?? null];';
        const result = await run(code, { onCall });
        expect(result).toMatchObject({ success: true, result: ['a.txt', null] });
        expect(Object.getOwnPropertyNames(seen[0])).toEqual(['path']);
      });
      it('sends a log line before the call that follows it', async () => {
        const order: string[] = [];
        const host = createFixtureHost();
        const onCall: CapabilityCallHandler = async (params, context) => {
          order.push(`call ${params.function}`);
          return host.onCall(params, context);
        };
        const code =
          "import { add } from '@capabilities/math';\nconsole.log('before');\nawait add({ a: 1, b: 1 });\nconsole.log('after');\nreturn 1;";
        const result = await run(code, { onCall, onLog: (log) => order.push(`log ${log.message}`) });
        expect(result.success).toBe(true);
        expect(order).toEqual(['log before', 'call add', 'log after']);
      });
      it('counts CPU time while an approval holds the wall clock', async () => {
        // `sleep` stands for a call waiting on a person: it holds the deadline until the run ends.
        const onCall: CapabilityCallHandler = async (params, context) => {
          if (params.function !== 'sleep') return createFixtureHost().onCall(params, context);
          const release = context.holdDeadline?.();
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
          release?.();
          return 0;
        };
        const code = [
          "import { add, sleep } from '@capabilities/math';",
          'void sleep({ ms: 0 });',
          'for (let i = 0; i < 1000; i++) {',
          '  await add({ a: i, b: 0 });',
          '  const until = Date.now() + 100;',
          '  while (Date.now() < until) {}',
          '}',
          "return 'computed for free';",
        ].join('\n');
        const result = await run(code, { onCall, limits: { timeoutMs: 1000 } });
        expect(result).toMatchObject({
          success: false,
          timedOut: true,
          error: { code: 'TIMEOUT', message: expect.stringMatching(/CPU time/) },
        });
      });
      it('lets a program whose approval was decided wait for its calls beyond the CPU time it has left', async () => {
        // After the hold (2.7 s, while the program computes 2.5 s) the CPU budget (~1.5 s left) binds
        // before the wall clock (~4 s left): the program's waits for its replies (40 calls answered after
        // 50 ms each, 2 s) are not CPU time. Both budgets keep wide margins for a loaded machine (the
        // engine's count of a re-entry is wall time inside it; the calls' own overhead is wall time).
        const fixture = createFixtureHost().onCall;
        const onCall: CapabilityCallHandler = async (params, context) => {
          if (params.function === 'sleep') {
            const release = context.holdDeadline?.();
            await new Promise((resolve) => setTimeout(resolve, 2_700));
            release?.();
            return 0;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
          return fixture(params, context);
        };
        const code = [
          "import { add, sleep } from '@capabilities/math';",
          'const decided = sleep({ ms: 0 });',
          'await add({ a: 0, b: 0 });',
          'const until = Date.now() + 2_500;',
          'while (Date.now() < until) {}',
          'await decided;',
          'let sum = 0;',
          'for (let i = 0; i < 40; i++) sum += await add({ a: i, b: 0 });',
          'return sum;',
        ].join('\n');
        const result = await run(code, { onCall, limits: { timeoutMs: 4_000 } });
        expect(result).toMatchObject({ success: true, result: 780 });
      });
    });
  });
}

/**
 * Hostile programs against the sandbox's Web globals (timers, URL, structuredClone, …), in both
 * isolation modes: each must end with a clear result, never reach the host, and leave the host
 * healthy, which every test proves by running a trivial program afterwards.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunLog } from '../../core/run-result.js';
import { createSandbox } from '../../runtime/create-sandbox.js';
import { TIMER_LIMITS } from '../../runtime/host/sandbox-timers.js';
import { URL_LIMITS } from '../../runtime/host/sandbox-url-host.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';
import type { RunOptions, Sandbox } from '../../runtime/sandbox.js';

/** CPU-heavy cases (big strings, 100,000-object graphs) get a bound of their own on a busy machine. */
const HEAVY = 120_000;

for (const isolation of ['worker', 'thread', 'in-process'] as const) {
  describe(`hostile use of the sandbox globals (${isolation})`, () => {
    let sandbox: Sandbox;
    beforeAll(() => {
      sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation });
    });
    afterAll(async () => {
      await sandbox.close();
    });
    afterEach(async () => {
      const healthy = await sandbox.run('return await new Promise((resolve) => setTimeout(() => resolve([1, 2].map((n) => n * 2)), 1));', {
        onCall: createFixtureHost().onCall,
      });
      expect(healthy).toMatchObject({ success: true, result: [2, 4] });
    });
    const run = (code: string, options: Partial<RunOptions> = {}) => sandbox.run(code, { onCall: createFixtureHost().onCall, ...options });

    describe('timers', () => {
      it('survives a flood of timeouts: the program gets a RangeError at the cap, and the ones it made all fire', async () => {
        const code = [
          'let fired = 0, made = 0, error = "", allFired = () => {};',
          'try { for (;;) { setTimeout(() => { if (++fired === made) allFired(); }, 0); made++; } } catch (e) { error = (e as Error).message; }',
          'await new Promise<void>((resolve) => (allFired = resolve));',
          'return { made, fired, error };',
        ].join('\n');
        const result = await run(code);
        expect(result.result).toMatchObject({
          made: TIMER_LIMITS.maxPending,
          fired: TIMER_LIMITS.maxPending,
          error: expect.stringContaining("the sandbox's limit"),
        });
      });
      it('survives a thousand 0 ms intervals that never clear: the run ends with its result', async () => {
        const code = `let ticks = 0;\nfor (let i = 0; i < ${TIMER_LIMITS.maxPending - 1}; i++) setInterval(() => ticks++, 0);\nawait new Promise((resolve) => setTimeout(resolve, 100));\nreturn ticks > 0;`;
        expect(await run(code)).toMatchObject({ success: true, result: true });
      });
      it('times out a program that waits forever beside intervals that never clear', async () => {
        const result = await run('for (let i = 0; i < 100; i++) setInterval(() => undefined, 0);\nawait new Promise(() => {});', {
          limits: { timeoutMs: 400 },
        });
        expect(result).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
      });
      it('clamps huge, negative and odd delays: huge ones never fire within the run, the rest fire at once', async () => {
        const delays = [
          'Infinity',
          '1e308',
          '2 ** 53',
          `${TIMER_LIMITS.maxDelayMs + 1}`,
          '-5',
          'NaN',
          '"3"',
          '{ valueOf: () => 2 }',
          'undefined',
          '-Infinity',
        ];
        const code = `const fired: number[] = [];\nconst delays: unknown[] = [${delays.join(', ')}];\ndelays.forEach((delay, index) => setTimeout(() => fired.push(index), delay as number));\nawait new Promise((resolve) => setTimeout(resolve, 50));\nreturn fired.sort((a, b) => a - b);`;
        expect(await run(code)).toMatchObject({ success: true, result: [4, 5, 6, 7, 8, 9] });
        const waiting = await run('await new Promise((resolve) => setTimeout(resolve, Infinity));', { limits: { timeoutMs: 300 } });
        expect(waiting).toMatchObject({ timedOut: true, error: { code: 'TIMEOUT' } });
      });
      it('stops a timer callback that never returns at the time limit', async () => {
        const result = await run('setTimeout(() => { for (;;) {} }, 1);\nawait new Promise((resolve) => setTimeout(resolve, 60_000));', {
          limits: { timeoutMs: 300 },
        });
        expect(result).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
      });
      it('fires nothing after a run was cancelled or failed with timers pending', async () => {
        const logs: RunLog[] = [];
        const onLog = (log: RunLog): void => void logs.push(log);
        const controller = new AbortController();
        // "late" is due long after the cancel (which a busy machine may take a while to deliver).
        const cancelled = run(
          'setInterval(() => console.log("tick"), 5);\nsetTimeout(() => console.log("late"), 3_000);\nawait new Promise(() => {});',
          { onLog, signal: controller.signal },
        );
        // Cancel once the interval is known to run.
        while (logs.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        controller.abort();
        expect(await cancelled).toMatchObject({ success: false, error: { code: 'CANCELLED' } });
        const failed = await run(
          'for (let i = 0; i < 500; i++) setTimeout(() => console.log("after the error"), 20);\nthrow new Error("ends with timers pending");',
          { onLog },
        );
        expect(failed).toMatchObject({ success: false, error: { message: 'ends with timers pending' } });
        const seen = logs.length;
        // A later run waits well past every dropped timer's delay on a timer of its own.
        expect(await run('await new Promise((resolve) => setTimeout(resolve, 3_500));\nreturn 1;')).toMatchObject({ result: 1 });
        expect(logs.length).toBe(seen);
        expect(logs.every((log) => log.message === 'tick')).toBe(true);
      });
      it('refuses a string of code as a handler', async () => {
        const result = await run('setTimeout("globalThis.hacked = 1" as never, 0);');
        expect(result).toMatchObject({
          success: false,
          error: { name: 'TypeError', message: expect.stringContaining('does not evaluate strings of code') },
        });
      });
    });

    describe('URL', () => {
      it('refuses a 100 MB URL inside the isolate: it never reaches the host', { timeout: HEAVY }, async () => {
        const code = [
          'const huge = "x".repeat(100_000_000);',
          'const attempts: Array<() => unknown> = [() => new URL("https://a.example/" + huge), () => URL.canParse(huge), () => new URL("/p", "https://a.example/" + huge), () => { new URL("https://a.example/").pathname = huge; }];',
          'return attempts.map((attempt) => { try { attempt(); return "accepted"; } catch (e) { return (e as Error).name + ": " + (e as Error).message; } });',
        ].join('\n');
        const result = await run(code, { limits: { memoryLimitMb: 512, timeoutMs: 60_000 } });
        expect(result.error).toBeUndefined();
        expect(result.result).toEqual(
          Array.from({ length: 4 }, () =>
            expect.stringMatching(new RegExp(`^RangeError: URL: an input is longer than ${URL_LIMITS.maxInputChars} characters`)),
          ),
        );
      });
      it("refuses an input under the limit whose URL would pass the host's limit once percent-encoded", { timeout: HEAVY }, async () => {
        const code = `try { new URL("https://a.example/" + "€".repeat(${URL_LIMITS.maxInputChars - 100})); return "accepted"; } catch (e) { return (e as Error).name; }`;
        expect(await run(code, { limits: { memoryLimitMb: 256, timeoutMs: 60_000 } })).toMatchObject({
          success: true,
          result: 'RangeError',
        });
      });
      it('changes a URL whose href is longer than an input may be (percent-encoding made it so)', { timeout: HEAVY }, async () => {
        const code = `const url = new URL("https://a.example/" + "é".repeat(${URL_LIMITS.maxInputChars / 2}));\nconst before = url.href.length;\nurl.hash = "top";\nurl.searchParams.append("q", "1");\nreturn [before > ${URL_LIMITS.maxInputChars}, url.hash, url.search, url.href.length - before];`;
        expect(await run(code, { limits: { memoryLimitMb: 256, timeoutMs: 60_000 } })).toMatchObject({
          success: true,
          result: [true, '#top', '?q=1', 8],
        });
      });
      it('gives a forged or borrowed receiver a TypeError, never the host', async () => {
        const code = [
          'const getter = Object.getOwnPropertyDescriptor(URL.prototype, "href")!.get!;',
          'const fake = Object.create(URL.prototype) as URL;',
          'const attempts: Array<() => unknown> = [() => getter.call({}), () => fake.href, () => URLSearchParams.prototype.get.call(new URL("https://a/"), "x"), () => TextDecoder.prototype.decode.call({}), () => new URL({ toString() { throw new Error("from toString"); } } as never)];',
          'return attempts.map((attempt) => { try { attempt(); return "accepted"; } catch (e) { return (e as Error).name + ": " + (e as Error).message; } });',
        ].join('\n');
        expect(await run(code)).toMatchObject({
          success: true,
          result: [
            expect.stringMatching(/^TypeError: Illegal invocation/),
            expect.stringMatching(/^TypeError: Illegal invocation/),
            expect.stringMatching(/^TypeError: Illegal invocation/),
            expect.stringMatching(/^TypeError: Illegal invocation/),
            'Error: from toString',
          ],
        });
      });
    });

    describe('structuredClone', () => {
      it('copies a 100,000-object cycle and a 100,000-level nesting without overflowing the stack', { timeout: HEAVY }, async () => {
        const code = [
          'type Link = { index: number; next?: Link };',
          'const head: Link = { index: 0 }; let tail = head;',
          'for (let i = 1; i < 100_000; i++) { tail.next = { index: i }; tail = tail.next; }',
          'tail.next = head;',
          'const copy = structuredClone(head);',
          'let walk = copy, steps = 0;',
          'do { walk = walk.next!; steps++; } while (walk !== copy && steps < 200_000);',
          'let deep: Record<string, unknown> = {}; const root = deep;',
          'for (let i = 0; i < 100_000; i++) { const inner = {}; deep.inner = inner; deep = inner; }',
          'let depth = 0; for (let node = structuredClone(root) as Record<string, unknown> | undefined; node !== undefined; node = node.inner as Record<string, unknown> | undefined) depth++;',
          'return { steps, backToCopy: walk === copy, notOriginal: copy !== head, depth };',
        ].join('\n');
        expect(await run(code, { limits: { timeoutMs: 60_000 } })).toMatchObject({
          success: true,
          result: { steps: 100_000, backToCopy: true, notOriginal: true, depth: 100_001 },
        });
      });
      it('passes a throwing getter or Proxy trap to the program as its own error', async () => {
        const code =
          'const attempts = [() => structuredClone({ get boom() { throw new Error("getter"); } }), () => structuredClone(new Proxy({ a: 1 }, { ownKeys() { throw new Error("trap"); } }))];\nreturn attempts.map((attempt) => { try { attempt(); return "cloned"; } catch (e) { return (e as Error).message; } });';
        expect(await run(code)).toMatchObject({ success: true, result: ['getter', 'trap'] });
      });
    });

    describe('prototype tampering and host reach', () => {
      it('keeps every global working after the program rewrote the intrinsics they could use', async () => {
        // Returns raw values: the program's own code must not use what it is about to tamper with.
        const use = [
          'const url = new URL("https://a.example/p?x=1&y=%C3%A9"); url.searchParams.append("z", "1 2");',
          // From a string: an array would be iterated with the program's own (tampered) Array iterator, as the standard says.
          'const sp = new URLSearchParams("b=2&a=1"); sp.sort();',
          'const clone = structuredClone(source);',
          'const fromTimer = await new Promise((resolve) => setTimeout((v: string) => resolve(v), 1, "timer"));',
          'let micro = ""; queueMicrotask(() => { micro = "micro"; }); await null; await null;',
          'return [url.href, url.searchParams.get("y"), sp.toString(), sp.keys(), clone, btoa("hi"), atob("aGk="), new TextEncoder().encode("é"), new TextDecoder().decode(encoded), fromTimer, micro] as const;',
        ].join('\n');
        const targets = [
          'A, "push"',
          'A, Symbol.iterator',
          'A, "0"',
          'P, "href"',
          'P, "fatal"',
          'P, "transfer"',
          'Map.prototype, "get"',
          'Map.prototype, "set"',
          'Set.prototype, "add"',
          'String.prototype, "charCodeAt"',
          'String.prototype, "indexOf"',
          'String.prototype, "slice"',
          'String, "fromCharCode"',
          'JSON, "parse"',
          'JSON, "stringify"',
          'Reflect, "apply"',
          'T, "length"',
          'T, "buffer"',
          'Promise.prototype, "then"',
          'Function.prototype, "call"',
          'Function.prototype, "apply"',
        ];
        const tamper = [
          'A.push = () => { throw new Error("push"); }; A[Symbol.iterator] = function* () { yield "tampered"; };',
          'Object.defineProperty(A, "0", { set() { throw new Error("setter 0"); }, configurable: true });',
          'Object.defineProperty(P, "href", { set() { throw new Error("setter href"); }, configurable: true });',
          'Object.defineProperty(P, "fatal", { get() { return true; }, configurable: true });',
          'Object.defineProperty(P, "transfer", { get() { return [new ArrayBuffer(1)]; }, configurable: true });',
          'Map.prototype.get = () => "tampered"; Map.prototype.set = function () { return this; }; Set.prototype.add = function () { return this; };',
          'String.prototype.charCodeAt = () => 0; String.prototype.indexOf = () => -1; String.prototype.slice = () => "";',
          'String.fromCharCode = () => "tampered"; JSON.parse = () => ({}); JSON.stringify = () => "{}"; Reflect.apply = () => "tampered";',
          'Object.defineProperty(T, "length", { get() { return 0; }, configurable: true });',
          'Object.defineProperty(T, "buffer", { get() { return new ArrayBuffer(0); }, configurable: true });',
          'Promise.prototype.then = function () { throw new Error("then"); };',
          'Function.prototype.call = () => "tampered"; Function.prototype.apply = () => "tampered";',
        ].join('\n');
        const code = [
          'const P = Object.prototype as Record<string, unknown>, A = Array.prototype as unknown as Record<string | symbol, unknown>;',
          'const T = Object.getPrototypeOf(Uint8Array.prototype) as object;',
          // Made before the tampering: Map, Set and Uint8Array read an array argument with its iterator.
          'const source = { m: new Map([[1, [2, 3]]]), s: new Set(["x"]), d: new Date(5), b: new Uint8Array([1, 2]) }, encoded = new Uint8Array([0xc3, 0xa9]);',
          `const use = async () => {\n${use}\n};`,
          'const before = await use();',
          `const saved = [${targets.map((target) => `[${target}]`).join(', ')}].map((pair) => [pair[0], pair[1], Object.getOwnPropertyDescriptor(pair[0] as object, pair[1] as PropertyKey)] as const);`,
          tamper,
          'const after = await use();',
          // Restored before the results are read (index loop: the array iterator is one of the tampered).
          'for (let i = 0; i < saved.length; i++) { const entry = saved[i]!; if (entry[2] === undefined) delete (entry[0] as Record<PropertyKey, unknown>)[entry[1] as PropertyKey]; else Object.defineProperty(entry[0], entry[1] as PropertyKey, entry[2]); }',
          'const show = (values: Awaited<ReturnType<typeof use>>) => JSON.stringify([values[0], values[1], values[2], [...values[3]], [...values[4].m], [...values[4].s], values[4].d.getTime(), [...values[4].b], values[5], values[6], [...values[7]], values[8], values[9], values[10]]);',
          'return [show(before), show(after)];',
        ].join('\n');
        const result = await run(code);
        expect(result.error).toBeUndefined();
        const [before, after] = result.result as [string, string];
        expect(after).toBe(before);
        expect(JSON.parse(before)).toEqual([
          'https://a.example/p?x=1&y=%C3%A9&z=1+2',
          'é',
          'a=1&b=2',
          ['a', 'b'],
          [[1, [2, 3]]],
          ['x'],
          5,
          [1, 2],
          'aGk=',
          'hi',
          [0xc3, 0xa9],
          'é',
          'timer',
          'micro',
        ]);
      });
      it('reaches none of the host callbacks the globals use', async () => {
        const code = [
          'const names = ["timerHost", "urlHost", "firstUseSource", "awaitReplies", "wake", "send", "writeLog", "complete", "$0", "$3", "$4"];',
          'const visible = names.filter((name) => { try { return typeof (0, eval)(name) !== "undefined"; } catch { return false; } });',
          'const sources = [setTimeout, URL, structuredClone].map((fn) => Function.prototype.toString.call(fn).includes("[native code]"));',
          'return { visible, sources, callerHidden: (() => { try { return (setTimeout as unknown as { caller: unknown }).caller; } catch (e) { return (e as Error).name; } })() };',
        ].join('\n');
        expect(await run(code)).toMatchObject({
          success: true,
          result: { visible: [], sources: [false, false, false], callerHidden: 'TypeError' },
        });
      });
    });
  });
}

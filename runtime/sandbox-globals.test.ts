/**
 * The sandbox's globals: what the type checker is told (SANDBOX_GLOBALS_DECLARATION) is exactly what a
 * program finds at run time, on every engine in both isolation modes (contractMatrix: engines.ts's list,
 * or AGENT_SPACES_ENGINE's engine); and each global behaves as its standard says, checked against Node's
 * own implementation where Node has one.
 */
import { ts } from 'ts-morph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_HOST_GLOBAL } from '../core/manifest.js';
import type { CapabilityCallHandler } from '../core/protocol.js';
import type { RunLog } from '../core/run-result.js';
import { createSandbox } from './create-sandbox.js';
import { TIMER_LIMITS } from './host/sandbox-timers.js';
import { contractMatrix, createFixtureHost, FIXTURE_OUT_DIR } from './sandbox.contract.js';
import type { RunOptions, Sandbox } from './sandbox.js';
import { SANDBOX_GLOBALS_DECLARATION } from './sandbox-globals.js';
import { createTypeChecker } from './type-check.js';

/** Globals of Node or the browser a model may reach for that the sandbox does not have. */
const NOT_PROVIDED = [
  'fetch',
  'process',
  'require',
  'module',
  'exports',
  '__dirname',
  '__filename',
  'global',
  'Buffer',
  'setImmediate',
  'clearImmediate',
  'performance',
  'crypto',
  'navigator',
  'window',
  'self',
  'document',
  'location',
  'XMLHttpRequest',
  'WebSocket',
  'Blob',
  'FormData',
  'Headers',
  'Request',
  'Response',
  'AbortController',
  'AbortSignal',
  'EventTarget',
  'Event',
  'MessageChannel',
  'Worker',
  'WebAssembly',
  'reportError',
  'Deno',
  'Bun',
  'SharedArrayBuffer',
  'Atomics',
];

/** The value names SANDBOX_GLOBALS_DECLARATION declares (`declare var`, `declare function`). */
function declaredGlobals(): string[] {
  const file = ts.createSourceFile('/sandbox-globals.d.ts', SANDBOX_GLOBALS_DECLARATION, ts.ScriptTarget.ES2022);
  const names = new Set<string>();
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name !== undefined) names.add(statement.name.text);
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations) names.add(declaration.name.getText(file));
  }
  return [...names].sort();
}

const checker = createTypeChecker({ outDir: FIXTURE_OUT_DIR });

describe('the type environment', () => {
  it('declares the Web globals a model writes for', () => {
    expect(declaredGlobals()).toEqual([
      'DOMException',
      'TextDecoder',
      'TextEncoder',
      'URL',
      'URLSearchParams',
      'atob',
      'btoa',
      'clearInterval',
      'clearTimeout',
      'console',
      'queueMicrotask',
      'setInterval',
      'setTimeout',
      'structuredClone',
    ]);
  });
  it('knows no global the sandbox does not provide', async () => {
    const diagnostics = await checker.check(NOT_PROVIDED.map((name) => `typeof ${name};`).join('\n'));
    expect(diagnostics).toHaveLength(NOT_PROVIDED.length);
    diagnostics.forEach((diagnostic, index) => expect(diagnostic.message).toContain(`Cannot find name '${NOT_PROVIDED[index]}'`));
  });
  it('checks a program that uses every declared global as its standard types it', async () => {
    const code = [
      'const timer: number = setTimeout((a: number, b: string) => console.log(a, b), 10, 1, "x");',
      'clearTimeout(timer);',
      'const interval = setInterval(() => undefined, 5);',
      'clearInterval(interval);',
      'queueMicrotask(() => undefined);',
      'const url = new URL("/p?q=1", "https://example.com");',
      'url.searchParams.set("q", "2");',
      'for (const [name, value] of url.searchParams) console.log(name.length + value.length);',
      'const fromRecord = new URLSearchParams({ a: "1" }); const fromPairs = new URLSearchParams([["a", "1"]]);',
      'const parsed: URL | null = URL.parse("x"); const ok: boolean = URL.canParse("https://a");',
      'const bytes: Uint8Array = new TextEncoder().encode("é");',
      'const text: string = new TextDecoder("utf-8", { fatal: true }).decode(bytes);',
      'const copy: { when: Date } = structuredClone({ when: new Date() });',
      'try { atob(btoa(text)); } catch (error) { if (error instanceof DOMException) console.log(error.name, error.code); }',
      'return [parsed, ok, copy.when.getTime(), fromRecord.size + fromPairs.size, url.href];',
    ].join('\n');
    expect(await checker.check(code)).toEqual([]);
  });
  it('refuses what the sandbox does not do: string handlers, Node timer objects, streaming decode', async () => {
    const diagnostics = await checker.check(
      'setTimeout("alert(1)", 10);\nsetTimeout(() => undefined, 1).unref();\nnew TextDecoder().decode(new Uint8Array(1), { stream: true });',
    );
    expect(diagnostics.map((diagnostic) => diagnostic.line)).toEqual([1, 2, 3]);
  });
});

for (const { engine, placement: isolation } of contractMatrix()) {
  describe(`sandbox globals (${engine}, ${isolation})`, () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation, engine });
    });
    afterAll(async () => {
      await sandbox.close();
    });
    const run = (code: string, options: Partial<RunOptions> = {}) => sandbox.run(code, { onCall: createFixtureHost().onCall, ...options });
    const value = async (code: string, options: Partial<RunOptions> = {}): Promise<unknown> => {
      const result = await run(code, options);
      expect(result.error).toBeUndefined();
      return result.result;
    };

    describe('agree with the type environment', () => {
      it('has every declared global, and each global it has is declared or standard ES2022', async () => {
        const names = (await value('return Object.getOwnPropertyNames(globalThis);')) as string[];
        for (const name of declaredGlobals()) expect(names).toContain(name);
        // Everything else must be known to the checker without our declarations' help: ES2022's own.
        const others = names.filter((name) => !declaredGlobals().includes(name) && name !== SANDBOX_HOST_GLOBAL);
        expect(others.length).toBeGreaterThan(40);
        expect(await checker.check(others.map((name) => `typeof ${name};`).join('\n'))).toEqual([]);
      });
      it('has none of the globals it does not provide', async () => {
        const found = (await value(`return ${JSON.stringify(NOT_PROVIDED)}.filter((name) => name in globalThis);`)) as string[];
        expect(found).toEqual([]);
      });
      it('gives each declared global the kind of value its declaration says', async () => {
        const kinds = (await value(
          `return Object.fromEntries(${JSON.stringify(declaredGlobals())}.map((name) => [name, typeof (globalThis as Record<string, unknown>)[name]]));`,
        )) as Record<string, string>;
        expect(kinds).toEqual(Object.fromEntries(declaredGlobals().map((name) => [name, name === 'console' ? 'object' : 'function'])));
      });
    });

    describe('the Web globals, evaluated on first use', () => {
      it('are there for a program that froze the global object before using one', async () => {
        expect(
          await value(
            'Object.freeze(globalThis);\nreturn [btoa("hi"), new URL("/x", "https://a.example").href, structuredClone([1]), btoa === btoa];',
          ),
        ).toEqual(['aGk=', 'https://a.example/x', [1], true]);
      });
      it('work after a program put get, set and value on Object.prototype first', async () => {
        const code = [
          'const P = Object.prototype as Record<string, unknown>;',
          // Assigned (a descriptor literal of the program's own would inherit them too).
          'P.get = undefined; P.set = () => { throw new Error("set"); }; P.value = "tampered";',
          'const out = [btoa("hi"), new URL("/x", "https://a.example").pathname, new TextDecoder().decode(new TextEncoder().encode("é"))];',
          'delete P.get; delete P.set; delete P.value;',
          'return [...out, "value" in Object.getOwnPropertyDescriptor(globalThis, "atob")!];',
        ].join('\n');
        expect(await value(code)).toEqual(['aGk=', '/x', 'é', true]);
      });
      it('take assignments as the data properties they stand for would: on a sealed global object, and through an heir', async () => {
        const code = [
          'const heir = Object.create(globalThis) as { atob: unknown };',
          'heir.atob = 1;',
          'const own = Object.getOwnPropertyDescriptor(heir, "atob")?.value;',
          'Object.seal(globalThis);',
          'btoa = (() => "mine") as typeof btoa;',
          'return [own, typeof atob, btoa("x"), new URLSearchParams("a=1").get("a")];',
        ].join('\n');
        expect(await value(code)).toEqual([1, 'function', 'mine', '1']);
      });
      it('are there after a first read that failed at the stack limit', async () => {
        const code = [
          'let failed = 0;',
          'const deep = (n: number): number => { try { return deep(n + 1); } catch { try { return typeof TextEncoder === "function" ? n : n; } catch { failed++; return n; } } };',
          'deep(0);',
          'return [btoa("hi"), "value" in Object.getOwnPropertyDescriptor(globalThis, "btoa")!, failed <= 1];',
        ].join('\n');
        expect(await value(code)).toEqual(['aGk=', true, true]);
      });
      it('work for a program that replaced the built-ins their code uses before it first used one, and keep its own assignments', async () => {
        const code = [
          'atob = (() => "mine") as typeof atob;',
          'delete (globalThis as { btoa?: unknown }).btoa;',
          '(globalThis as Record<string, unknown>).Int16Array = function () { throw new Error("tampered Int16Array"); };',
          '(Object.getPrototypeOf(Int8Array.prototype) as { fill: unknown }).fill = () => { throw new Error("tampered fill"); };',
          'Function.prototype.call = Function.prototype.apply = () => { throw new Error("tampered call"); };',
          'Reflect.apply = () => { throw new Error("tampered apply"); };',
          '(globalThis as Record<string, unknown>).Function = function () { throw new Error("tampered Function"); };',
          'Object.defineProperty = (() => { throw new Error("tampered defineProperty"); }) as typeof Object.defineProperty;',
          'const bytes = new TextEncoder().encode("é");',
          'return [atob("x"), "btoa" in globalThis, bytes.length, new URLSearchParams("a=1").get("a"), new DOMException("m", "DataCloneError").code];',
        ].join('\n');
        expect(await value(code)).toEqual(['mine', false, 2, '1', 25]);
      });
    });

    describe('timers', () => {
      it('runs timeouts in order of their delay, with their arguments, and not once cleared', async () => {
        const code = [
          'const order: string[] = [];',
          'await new Promise<void>((resolve) => {',
          // Delays far apart: on a loaded machine the thread may stop between two statements for tens of ms.
          '  setTimeout((tag: string) => order.push(tag), 400, "late");',
          '  const cleared = setTimeout(() => order.push("cleared"), 5);',
          '  setTimeout((a: string, b: string) => order.push(a + b), 0, "fir", "st");',
          '  clearTimeout(cleared);',
          '  setTimeout(resolve, 800);',
          '});',
          'return order;',
        ].join('\n');
        expect(await value(code)).toEqual(['first', 'late']);
      });
      it('repeats an interval until it is cleared', async () => {
        const code =
          'let ticks = 0;\nawait new Promise<void>((resolve) => { const id = setInterval(() => { if (++ticks === 5) { clearInterval(id); resolve(); } }, 1); });\nreturn ticks;';
        expect(await value(code)).toBe(5);
      });
      it('waits in a retry loop with sleeps', async () => {
        const code = [
          "import { fail, add } from '@capabilities/math';",
          'const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));',
          'let attempts = 0;',
          'for (;;) {',
          '  attempts++;',
          '  try { if (attempts < 3) await fail({ code: "TOOL_FAILED" }); return { attempts, sum: await add({ a: 1, b: 2 }) }; }',
          '  catch { await sleep(10 * attempts); }',
          '}',
        ].join('\n');
        expect(await value(code)).toEqual({ attempts: 3, sum: 3 });
      });
      it('runs queued microtasks before the next timer', async () => {
        const code =
          'const order: string[] = [];\nsetTimeout(() => order.push("timer"), 0);\nqueueMicrotask(() => order.push("microtask"));\norder.push("sync");\nawait new Promise((resolve) => setTimeout(resolve, 5));\nreturn order;';
        expect(await value(code)).toEqual(['sync', 'microtask', 'timer']);
      });
      it("counts a timer against the run's time limit: one due after the deadline times the run out", async () => {
        const result = await run('await new Promise((resolve) => setTimeout(resolve, 60_000));\nreturn 1;', { limits: { timeoutMs: 300 } });
        expect(result).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
      });
      it('ends the run when the result is settled: pending timers and intervals are dropped, never fired later', async () => {
        const logs: RunLog[] = [];
        const result = await run(
          'setTimeout(() => console.log("late timeout"), 20);\nsetInterval(() => console.log("late interval"), 1);\nreturn "done";',
          { onLog: (log) => logs.push(log) },
        );
        expect(result).toMatchObject({ success: true, result: 'done', logs: [] });
        // Another run waits well past the dropped timers' delays on a timer of its own.
        expect(await value('await new Promise((resolve) => setTimeout(resolve, 100));\nreturn "waited";')).toBe('waited');
        expect(logs).toEqual([]);
      });
      it('is not a deadlock while a timer is pending, and is one once every timer was cleared', async () => {
        expect(await run('const id = setTimeout(() => undefined, 50);\nclearTimeout(id);\nawait new Promise(() => {});')).toMatchObject({
          error: { code: 'DEADLOCK' },
        });
        expect(await run('setInterval(() => undefined, 10);\nawait new Promise(() => {});', { limits: { timeoutMs: 300 } })).toMatchObject({
          error: { code: 'TIMEOUT' },
        });
      });
      it('ends the run with the error a timer callback throws, as an uncaught exception', async () => {
        const result = await run(
          'setTimeout(() => { throw new TypeError("from a timer"); }, 1);\nawait new Promise((resolve) => setTimeout(resolve, 1000));',
        );
        expect(result).toMatchObject({ success: false, error: { name: 'TypeError', message: 'from a timer', code: 'RUNTIME_ERROR' } });
        const micro = await run(
          'queueMicrotask(() => { throw new Error("from a microtask"); });\nawait new Promise((resolve) => setTimeout(resolve, 1000));',
        );
        expect(micro).toMatchObject({ success: false, error: { message: 'from a microtask' } });
      });
      it('caps pending timers and timers per run with a RangeError the program can catch', async () => {
        const pending = `const ids: number[] = [];\ntry { for (;;) ids.push(setTimeout(() => undefined, 60_000)); } catch (e) { const error = e as RangeError & { code: string }; return { count: ids.length, name: error.name, code: error.code, message: error.message }; }`;
        expect(await value(pending)).toMatchObject({
          count: TIMER_LIMITS.maxPending,
          name: 'RangeError',
          code: 'TIMER_LIMIT',
          message: expect.stringContaining(`${TIMER_LIMITS.maxPending} timers are already pending`),
        });
        const perRun =
          'let count = 0;\ntry { for (;;) { clearTimeout(setTimeout(() => undefined, 1)); count++; } } catch (e) { return { count, code: (e as { code: string }).code }; }';
        expect(await value(perRun)).toEqual({ count: TIMER_LIMITS.maxPerRun, code: 'TIMER_LIMIT' });
      });
      it('keeps firing timers while the host holds the clock for an approval, which does not count', async () => {
        // The timer is due after the whole time limit: it can only fire while the clock is held.
        let sawTick!: () => void;
        const ticked = new Promise<void>((resolve) => (sawTick = resolve));
        const onCall: CapabilityCallHandler = async (_params, context) => {
          const release = context.holdDeadline?.();
          await ticked;
          release?.();
          return 42;
        };
        const onLog = (log: RunLog): void => {
          if (log.message === 'tick') sawTick();
        };
        // The limit leaves a busy machine room to reach the call; the timer is due after it.
        const code =
          "import { add } from '@capabilities/math';\nsetTimeout(() => console.log('tick'), 2500);\nreturn await add({ a: 1, b: 2 });";
        const result = await run(code, { onCall, onLog, limits: { timeoutMs: 2000 } });
        expect(result).toMatchObject({ success: true, result: 42, logs: [{ level: 'log', message: 'tick' }] });
      });
    });

    describe('URL and URLSearchParams', () => {
      const INPUTS: [string, string?][] = [
        ['https://user:pa ss@EXAMPLE.com:443/a/../b/./c d?q=1 2&é=ü#frag ment'],
        ['/path?x#y', 'http://host:8080/dir/file'],
        ['../up', 'file:///C:/a/b'],
        ['http://[::1]:3000/'],
        ['https://xn--nxasmq6b.com/'],
        ['https://münchen.de/straße'],
        ['mailto:someone@example.com?subject=hi there'],
        ['data:text/plain,hello world  '],
        ['blob:https://a.com/uuid'],
        ['  https://trim.me/\t\n  '],
        ['https://a.com/?a=1&a=2&b=%zz&c=+'],
        ['http://0x7f.1/'],
      ];
      it("parses as WHATWG (Node's parser) does, every component", async () => {
        const code = `return ${JSON.stringify(INPUTS)}.map(([input, base]) => { const url = new URL(input, base); return [url.href, url.origin, url.protocol, url.username, url.password, url.host, url.hostname, url.port, url.pathname, url.search, url.hash, String(url), JSON.stringify({ url })]; });`;
        const expected = INPUTS.map(([input, base]) => {
          const url = new URL(input, base);
          return [
            url.href,
            url.origin,
            url.protocol,
            url.username,
            url.password,
            url.host,
            url.hostname,
            url.port,
            url.pathname,
            url.search,
            url.hash,
            String(url),
            JSON.stringify({ url }),
          ];
        });
        expect(await value(code)).toEqual(expected);
      });
      it('throws TypeError for an invalid URL; canParse and parse say so without throwing', async () => {
        const code =
          'const outcome: unknown[] = [URL.canParse("nope"), URL.canParse("http://300.1.1.1/"), URL.canParse("/x", "https://a"), URL.parse("nope"), URL.parse("https://a/b")?.pathname];\ntry { new URL("http://exa mple.com"); } catch (e) { outcome.push((e as Error).name, (e as Error).message, (e as { code: string }).code); }\nreturn outcome;';
        expect(await value(code)).toEqual([
          false,
          false,
          true,
          null,
          '/b',
          'TypeError',
          'Invalid URL: "http://exa mple.com"',
          'ERR_INVALID_URL',
        ]);
      });
      it('applies setters as WHATWG does', async () => {
        const steps: [string, string][] = [
          ['protocol', 'http'],
          ['hostname', 'Other.ORG'],
          ['port', '8080'],
          ['port', 'nope'],
          ['pathname', '/a b/ü'],
          ['search', '?x=1 2'],
          ['hash', 'h h'],
          ['username', 'u@s'],
          ['password', 'p:w'],
          ['host', 'h.com:99'],
          ['protocol', 'ftp:'],
          ['href', 'https://fresh.example/x?y=1'],
        ];
        const code = `const url = new URL('https://example.com/'); return ${JSON.stringify(steps)}.map(([key, next]) => { (url as unknown as Record<string, string>)[key] = next; return url.href; });`;
        const url = new URL('https://example.com/');
        const expected = steps.map(([key, next]) => {
          (url as unknown as Record<string, string>)[key] = next;
          return url.href;
        });
        expect(await value(code)).toEqual(expected);
        expect((await run('const url = new URL("https://a/");\nurl.href = "not a url";')).error).toMatchObject({ name: 'TypeError' });
      });
      it('keeps searchParams and the URL in step both ways', async () => {
        const code = [
          'const url = new URL("https://a.com/p?x=1&y=2#h");',
          'const params = url.searchParams;',
          'params.append("z", "a b&c");',
          'const afterAppend = url.href;',
          'params.delete("x");',
          'url.search = "?fresh=1";',
          'const fresh = [...params];',
          'params.delete("fresh");',
          'return { afterAppend, fresh, emptied: url.href, same: url.searchParams === params };',
        ].join('\n');
        expect(await value(code)).toEqual({
          afterAppend: 'https://a.com/p?x=1&y=2&z=a+b%26c#h',
          fresh: [['fresh', '1']],
          emptied: 'https://a.com/p#h',
          same: true,
        });
      });
      it('shows a URL and its params in console output', async () => {
        const result = await run('const url = new URL("https://a.com/x?y=1&z=2");\nconsole.log(url, url.searchParams);');
        expect(result.logs).toEqual([
          { level: 'log', message: 'URL { href: "https://a.com/x?y=1&z=2" } URLSearchParams { "y" => "1", "z" => "2" }' },
        ]);
      });
      it('parses and serialises URLSearchParams as Node does', async () => {
        const inits = ['?a=1&b=2&a=3', 'a=b+c&d=%zz&%F0%9F%98%80=1&=x&y&&z=', 'q=%E2%82%AC+%25&\uD800=lone', '%C3%28=bad-utf8', 'k=v=w'];
        const code = `return ${JSON.stringify(inits)}.map((init) => { const params = new URLSearchParams(init); const entries = [...params]; params.sort(); return [entries, params.toString(), params.get("a"), params.getAll("a"), params.has("y"), params.size]; });`;
        const expected = inits.map((init) => {
          const params = new URLSearchParams(init);
          const entries = [...params];
          params.sort();
          return [entries, params.toString(), params.get('a'), params.getAll('a'), params.has('y'), params.size];
        });
        expect(await value(code)).toEqual(expected);
      });
      it('builds URLSearchParams from records, pairs and other params, and edits them', async () => {
        const code = [
          'const fromRecord = new URLSearchParams({ b: "2", a: "1 1", "é": "~!*()\'" });',
          'const fromPairs = new URLSearchParams([["a", "1"], ["a", "2"], ["b", "3"]]);',
          'const copy = new URLSearchParams(fromPairs);',
          'copy.set("a", "only"); copy.delete("b", "nope"); const keys = [...copy.keys()]; const values = [...copy.values()];',
          'const seen: string[] = []; fromPairs.forEach((value, name) => seen.push(name + value));',
          'let error = ""; try { new URLSearchParams([["only-one"]] as unknown as string[][]); } catch (e) { error = (e as Error).name; }',
          'return [fromRecord.toString(), fromPairs.toString(), copy.toString(), keys, values, seen, error, fromPairs.has("a", "2"), Object.prototype.toString.call(copy)];',
        ].join('\n');
        const fromPairs = new URLSearchParams([
          ['a', '1'],
          ['a', '2'],
          ['b', '3'],
        ]);
        const copy = new URLSearchParams(fromPairs);
        copy.set('a', 'only');
        copy.delete('b', 'nope');
        expect(await value(code)).toEqual([
          new URLSearchParams({ b: '2', a: '1 1', é: "~!*()'" }).toString(),
          fromPairs.toString(),
          copy.toString(),
          [...copy.keys()],
          [...copy.values()],
          ['a1', 'a2', 'b3'],
          'TypeError',
          true,
          '[object URLSearchParams]',
        ]);
      });
    });

    describe('TextEncoder and TextDecoder', () => {
      // Valid text, every kind of broken UTF-8, a BOM, and random bytes (fixed seed).
      const random = Array.from({ length: 2000 }, (_, index) => (index * 7919 + 13) % 256);
      const CASES: number[][] = [
        [...Buffer.from('héllo € 𝄞 日本')],
        [0xef, 0xbb, 0xbf, 0x41],
        [0xc0, 0x80],
        [0xe0, 0x80, 0x80],
        [0xed, 0xa0, 0x80],
        [0xf4, 0x90, 0x80, 0x80],
        [0xf0, 0x9f, 0x98],
        [0xe2, 0x82],
        [0x80, 0x41, 0xff, 0xfe],
        [0xf0, 0x9f, 0x98, 0x80, 0xc3],
        random,
      ];
      it("decodes as Node's TextDecoder does, replacing errors, or throwing with fatal; honours ignoreBOM", async () => {
        const code = `return ${JSON.stringify(CASES)}.map((bytes) => { const input = new Uint8Array(bytes); let fatal: string; try { fatal = new TextDecoder("utf-8", { fatal: true }).decode(input); } catch (e) { fatal = (e as Error).name; } return [new TextDecoder().decode(input), new TextDecoder("UTF8", { ignoreBOM: true }).decode(input.buffer), new TextDecoder().decode(new DataView(input.buffer, 1)), fatal]; });`;
        const expected = CASES.map((bytes) => {
          const input = new Uint8Array(bytes);
          let fatal: string;
          try {
            fatal = new TextDecoder('utf-8', { fatal: true }).decode(input);
          } catch (error) {
            fatal = (error as Error).name;
          }
          return [
            new TextDecoder().decode(input),
            new TextDecoder('UTF8', { ignoreBOM: true }).decode(input.buffer),
            new TextDecoder().decode(new DataView(input.buffer, 1)),
            fatal,
          ];
        });
        expect(await value(code)).toEqual(expected);
      });
      it("encodes as Node's TextEncoder does (lone surrogates as U+FFFD), also into a buffer too small", async () => {
        const texts = ['héllo € 𝄞', 'lone \uD800 high', 'lone \uDC00 low', '\uD83D', ''];
        const code = `return ${JSON.stringify(texts)}.map((text) => { const into = new Uint8Array(5); const done = new TextEncoder().encodeInto(text, into); return [Array.from(new TextEncoder().encode(text)), done, Array.from(into)]; });`;
        const expected = texts.map((text) => {
          const into = new Uint8Array(5);
          const done = new TextEncoder().encodeInto(text, into);
          return [Array.from(new TextEncoder().encode(text)), { read: done.read, written: done.written }, Array.from(into)];
        });
        expect(await value(code)).toEqual(expected);
      });
      it('refuses other encodings and streaming with a clear error', async () => {
        const code =
          'const errors: string[] = [];\nfor (const make of [() => new TextDecoder("latin1"), () => new TextDecoder().decode(new Uint8Array(1), { stream: true } as never), () => new TextDecoder().decode("text" as never)]) { try { make(); } catch (e) { errors.push((e as Error).name + ": " + (e as Error).message); } }\nreturn errors;';
        expect(await value(code)).toEqual([
          'RangeError: TextDecoder: the encoding "latin1" is not supported in the sandbox; only UTF-8 is',
          expect.stringMatching(/^TypeError: .*streaming/),
          expect.stringMatching(/^TypeError: .*ArrayBuffer, a typed array or a DataView/),
        ]);
      });
    });

    describe('atob and btoa', () => {
      const DECODE = [
        'aGVsbG8=',
        'aGVsbG8',
        ' aG Vs\nbG8 = ',
        'YQ==',
        'YQ=',
        'YQ',
        'Y',
        'YQ===',
        'a=b=',
        '////',
        '+/+/',
        '-_',
        'ab\u00e9',
        '',
        '=',
        'AAAA',
      ];
      const ENCODE = ['hello', '', 'a', 'ab', '\u00ff\u0000\u0080', 'é', '€'];
      it("decode and encode as Node's atob/btoa do, with InvalidCharacterError DOMExceptions", async () => {
        const outcome = (compute: () => string): unknown => {
          try {
            return compute();
          } catch (error) {
            return [(error as DOMException).name, (error as DOMException).code, error instanceof DOMException && error instanceof Error];
          }
        };
        const code = `const outcome = (compute: () => string): unknown => { try { return compute(); } catch (error) { return [(error as DOMException).name, (error as DOMException).code, error instanceof DOMException && error instanceof Error]; } };\nreturn [${JSON.stringify(DECODE)}.map((text) => outcome(() => atob(text))), ${JSON.stringify(ENCODE)}.map((text) => outcome(() => btoa(text)))];`;
        expect(await value(code)).toEqual([
          DECODE.map((text) => outcome(() => atob(text))),
          ENCODE.map((text) => outcome(() => btoa(text))),
        ]);
      });
      it('round-trips every byte', async () => {
        const code =
          'let bytes = ""; for (let i = 0; i < 256; i++) bytes += String.fromCharCode(i);\nreturn [atob(btoa(bytes)) === bytes, btoa(bytes)];';
        let bytes = '';
        for (let index = 0; index < 256; index++) bytes += String.fromCharCode(index);
        expect(await value(code)).toEqual([true, btoa(bytes)]);
      });
    });

    describe('structuredClone', () => {
      it('copies the structured-clone types, keeping cycles and shared references', async () => {
        const code = [
          'const shared = { n: 1 };',
          'const buffer = new ArrayBuffer(8);',
          'const source: Record<string, unknown> = {',
          '  date: new Date(86_400_000), regexp: /a.b/gis, map: new Map<unknown, unknown>([[shared, "key is shared"], ["k", shared]]), set: new Set([1, shared]),',
          '  bytes: new Uint8Array(buffer, 2, 4), floats: new Float64Array(buffer), view: new DataView(buffer, 1, 2), buffer, big: 10n, wrapped: Object(7),',
          '  sparse: [1, , 3], error: new RangeError("bad"), nested: { shared, list: [shared] }, undef: undefined, nan: NaN, negZero: -0,',
          '};',
          'source.self = source;',
          '(source.bytes as Uint8Array)[0] = 200;',
          'const copy = structuredClone(source);',
          'const nested = copy.nested as { shared: object; list: object[] };',
          'return {',
          '  distinct: copy !== source && copy.self === copy && nested.shared === nested.list[0] && nested.shared !== shared,',
          '  mapKeyShared: [...(copy.map as Map<unknown, unknown>).keys()][0] === nested.shared && (copy.map as Map<unknown, unknown>).get("k") === nested.shared,',
          '  setShared: [...(copy.set as Set<unknown>)][1] === nested.shared,',
          '  date: (copy.date as Date).toISOString(), regexp: String(copy.regexp),',
          '  bufferShared: (copy.bytes as Uint8Array).buffer === copy.buffer && (copy.floats as Float64Array).buffer === copy.buffer && (copy.view as DataView).buffer === copy.buffer,',
          '  bytes: [...(copy.bytes as Uint8Array)], byteOffset: (copy.bytes as Uint8Array).byteOffset, view: [(copy.view as DataView).byteOffset, (copy.view as DataView).byteLength],',
          '  independent: ((copy.bytes as Uint8Array)[0] = 1, (source.bytes as Uint8Array)[0]),',
          '  big: typeof copy.big, wrapped: copy.wrapped instanceof Number && Number(copy.wrapped), sparse: [1 in (copy.sparse as unknown[]), (copy.sparse as unknown[]).length],',
          '  error: [(copy.error as Error) instanceof RangeError, (copy.error as Error).message], undef: "undef" in copy, nan: Number.isNaN(copy.nan), negZero: Object.is(copy.negZero, -0),',
          '};',
        ].join('\n');
        expect(await value(code)).toEqual({
          distinct: true,
          mapKeyShared: true,
          setShared: true,
          date: '1970-01-02T00:00:00.000Z',
          regexp: '/a.b/gis',
          bufferShared: true,
          bytes: [200, 0, 0, 0],
          byteOffset: 2,
          view: [1, 2],
          independent: 200,
          big: 'bigint',
          wrapped: 7,
          sparse: [false, 3],
          error: [true, 'bad'],
          undef: true,
          nan: true,
          negZero: true,
        });
      });
      it('drops prototypes and accessors as the standard does, and refuses functions and symbols with DataCloneError', async () => {
        const code = [
          'class Point { constructor(public x: number) {} get double() { return this.x * 2; } }',
          'const copy = structuredClone(new Point(2)) as unknown as Record<string, unknown>;',
          'const errors = [() => structuredClone({ f() {} }), () => structuredClone(Symbol("s")), () => structuredClone(new WeakMap()), () => structuredClone(Promise.resolve()), () => structuredClone(1, { transfer: [new ArrayBuffer(1)] } as never)].map((clone) => { try { clone(); return "cloned"; } catch (e) { return [(e as DOMException).name, (e as DOMException).code]; } });',
          'return { plain: Object.getPrototypeOf(copy) === Object.prototype, x: copy.x, double: "double" in copy, errors };',
        ].join('\n');
        expect(await value(code)).toEqual({
          plain: true,
          x: 2,
          double: false,
          errors: Array.from({ length: 5 }, () => ['DataCloneError', 25]),
        });
      });
    });
  });
}

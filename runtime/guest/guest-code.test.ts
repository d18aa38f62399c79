/**
 * The guest code as the engines load it: generated/guest-code.ts is what the sources in src/ make
 * (checked in, so it must not go stale), it is one function of the host functions src/host.d.ts
 * declares, and the generator refuses what would not be plain guest code, saying where.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { parse } from 'acorn';
import { afterAll, describe, expect, it } from 'vitest';
import { SANDBOX_HOST_GLOBAL } from '../../core/manifest.js';
import {
  assembleBootstrap,
  GENERATED_FILE,
  generateGuestCode,
  GuestSourceError,
  HOST_DECLARATIONS,
  readHostInterface,
  REGENERATE_COMMAND,
  stripGuestFile,
} from './generate-guest-code.js';
import { BOOTSTRAP_FUNCTION, FIRST_USE_SOURCE } from './generated/guest-code.js';
import { HOST_VALUES } from './host-values.js';

const SOURCE_DIR = path.join(path.dirname(GENERATED_FILE), '..', 'src');
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/**
 * The host's callbacks in the bootstrap's parameter order (src/host.d.ts), each doing nothing unless
 * `given`; `jsonStack` only when given (QuickJS's host passes it), `awaitReplies` only when given (the host
 * passes it only where the isolate may block its thread).
 */
function hostCallbacks(
  given: Partial<
    Record<'send' | 'writeLog' | 'complete' | 'timerHost' | 'urlHost' | 'firstUseSource' | 'jsonStack' | 'awaitReplies', unknown>
  > = {},
): unknown[] {
  return [
    given.send ?? (() => undefined),
    given.writeLog ?? (() => true),
    given.complete ?? (() => undefined),
    given.timerHost ?? (() => undefined),
    given.urlHost ?? (() => 'invalid'),
    given.firstUseSource ?? (() => FIRST_USE_SOURCE),
    given.jsonStack,
    ...(given.awaitReplies === undefined ? [] : [given.awaitReplies]),
  ];
}

describe('generated/guest-code.ts', () => {
  it('is what the guest sources make now', () => {
    const current = readFileSync(GENERATED_FILE, 'utf8');
    // Not toBe on the whole text: a 1,300-line diff hides the message that says what to do.
    if (current !== generateGuestCode()) expect.fail(`runtime/guest/generated/guest-code.ts is stale: run ${REGENERATE_COMMAND}`);
  });

  it('is one function expression whose parameters are the host functions of src/host.d.ts, in order', () => {
    const host = readHostInterface({ name: HOST_DECLARATIONS, text: readFileSync(path.join(SOURCE_DIR, HOST_DECLARATIONS), 'utf8') });
    expect(host.functions).toEqual(['send', 'writeLog', 'complete', 'timerHost', 'urlHost', 'firstUseSource', 'jsonStack', 'awaitReplies']);
    const tree = parse(BOOTSTRAP_FUNCTION, { ecmaVersion: 2022, sourceType: 'script' });
    expect(tree.body).toHaveLength(1);
    const statement = tree.body[0];
    if (statement?.type !== 'ExpressionStatement' || statement.expression.type !== 'FunctionExpression')
      throw new Error('not a function expression');
    expect(statement.expression.params.map((param) => (param.type === 'Identifier' ? param.name : param.type))).toEqual(host.functions);
  });

  it('writes the host values from host-values.ts into the bootstrap', () => {
    expect(BOOTSTRAP_FUNCTION).toContain(
      `const HOST_GLOBAL = ${JSON.stringify(HOST_VALUES.HOST_GLOBAL)}, TIMER_LIMITS = ${JSON.stringify(HOST_VALUES.TIMER_LIMITS)},`,
    );
  });

  it('installs the globals and returns deliver, run and wake when a context evaluates it', () => {
    const context = {} as Record<string, unknown>;
    const bootstrap = runInNewContext(BOOTSTRAP_FUNCTION, context, { filename: 'bootstrap.js' }) as (
      ...callbacks: unknown[]
    ) => Record<string, unknown>;
    const exports = bootstrap(...hostCallbacks());
    expect(Object.keys(exports)).toEqual(['deliver', 'run', 'wake']);
    expect(Object.values(exports).map((value) => typeof value)).toEqual(['function', 'function', 'function']);
    const names = runInNewContext('Object.getOwnPropertyNames(globalThis)', context) as string[];
    // In the order the guest files install them.
    const installed = [
      'console',
      SANDBOX_HOST_GLOBAL,
      'setTimeout',
      'setInterval',
      'clearTimeout',
      'clearInterval',
      'queueMicrotask',
      'DOMException',
      'atob',
      'btoa',
      'TextEncoder',
      'TextDecoder',
      'URLSearchParams',
      'URL',
      'structuredClone',
    ];
    expect(names.filter((name) => installed.includes(name))).toEqual(installed);
    // The Web globals (ON_FIRST_USE) are accessors until a program reads one; then all of them are data.
    const kinds = () =>
      runInNewContext(
        `${JSON.stringify(installed.slice(7))}.map((name) => 'value' in Object.getOwnPropertyDescriptor(globalThis, name) ? 'data' : 'accessor')`,
        context,
      ) as string[];
    expect(kinds()).toEqual(installed.slice(7).map(() => 'accessor'));
    expect(
      runInNewContext('[typeof WebAssembly, typeof SharedArrayBuffer, btoa("hi"), new URLSearchParams("a=1&b=2").get("b")]', context),
    ).toEqual(['undefined', 'undefined', 'aGk=', '2']);
    expect(kinds()).toEqual(installed.slice(7).map(() => 'data'));
  });

  it('keeps what a program made of a Web global before its first use, and evaluates them with the built-ins of the bootstrap', () => {
    const context = {} as Record<string, unknown>;
    const bootstrap = runInNewContext(BOOTSTRAP_FUNCTION, context) as (...callbacks: unknown[]) => Record<string, unknown>;
    bootstrap(...hostCallbacks());
    const result = runInNewContext(
      [
        'atob = "mine"; delete globalThis.btoa; Object.defineProperty(globalThis, "TextDecoder", { value: 7, configurable: true });',
        // Built-ins the Web globals' code uses at its top level, replaced before it is first evaluated.
        'Int16Array = function () { throw new Error("tampered Int16Array"); };',
        'Object.getPrototypeOf(Int8Array.prototype).fill = () => { throw new Error("tampered fill"); };',
        'Function.prototype.call = Function.prototype.apply = () => { throw new Error("tampered call"); };',
        'Reflect.apply = () => { throw new Error("tampered apply"); };',
        'globalThis.Function = function () { throw new Error("tampered Function"); };',
        'const text = new TextEncoder().encode("é");',
        '[atob, typeof btoa, TextDecoder, text.length, typeof structuredClone, typeof URL, "btoa" in globalThis]',
      ].join('\n'),
      context,
    ) as unknown[];
    expect(result).toEqual(['mine', 'undefined', 7, 2, 'function', 'function', false]);
  });
});

describe('the Web globals when the host cannot give their source', () => {
  it('leaves them accessors that throw a TypeError, and loads them at a later read that gets the source', () => {
    const context = {} as Record<string, unknown>;
    const bootstrap = runInNewContext(BOOTSTRAP_FUNCTION, context) as (...callbacks: unknown[]) => Record<string, unknown>;
    let source: unknown = undefined;
    bootstrap(...hostCallbacks({ firstUseSource: () => source }));
    const read = (): unknown =>
      runInNewContext(
        '(() => { try { return btoa("hi"); } catch (error) { return [error.name, error.message, "value" in Object.getOwnPropertyDescriptor(globalThis, "btoa")]; } })()',
        context,
      );
    const refused = ['TypeError', 'the sandbox could not load its Web globals', false];
    expect(read()).toEqual(refused);
    // A source whose parameters are not the values the bootstrap captured (another build's).
    source = '(function (installGlobal) { installGlobal("btoa", () => "wrong"); })';
    expect(read()).toEqual(refused);
    source = FIRST_USE_SOURCE;
    expect(read()).toBe('aGk=');
  });
});

describe('the guest waiting for replies (awaitReplies)', () => {
  const settings = {
    maxCalls: 100,
    callLimitError: '{}',
    maxArgumentBytes: 1_000_000,
    argumentLimitError: '{}',
    callSites: false,
    maxJsonDepth: 0,
  };
  const program = `async () => {
    let sum = 0;
    for (let n = 1; n <= 3; n++) sum += (await globalThis[${JSON.stringify(SANDBOX_HOST_GLOBAL)}].call('bench', 'echo', { n }, 'value')).n;
    return sum;
  }`;

  /** Runs the program with the host's callbacks; `answer` is awaitReplies (or none): each call's reply echoes its arguments. */
  const start = (answer?: (sent: [number, string][]) => string) => {
    const context = {} as Record<string, unknown>;
    const bootstrap = runInNewContext(BOOTSTRAP_FUNCTION, context, { filename: 'bootstrap.js' }) as (...callbacks: unknown[]) => {
      deliver(batch: string): void;
      run(main: unknown, settings: unknown): Promise<void>;
    };
    const sent: [number, string][] = [];
    const outcome: { completed?: [boolean, string]; waits: number } = { waits: 0 };
    const exports = bootstrap(
      ...hostCallbacks({
        send: (id: number, _capability: string, _fn: string, argsJson: string) => void sent.push([id, argsJson]),
        complete: (ok: boolean, json: string) => (outcome.completed = [ok, json]),
        ...(answer === undefined ? {} : { awaitReplies: () => (outcome.waits++, answer(sent)) }),
      }),
    );
    const reply = ([id, argsJson]: [number, string]) => JSON.stringify([[id, true, JSON.parse(argsJson)]]);
    return { exports, sent, outcome, reply, main: runInNewContext(`(${program})`, context) as unknown };
  };

  it('takes the replies of sequential calls inside the delivery that woke it, each once the program made its next call', async () => {
    const { exports, sent, outcome, reply, main } = start((calls) => reply(calls.at(-1)!));
    void exports.run(main, settings);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map(([id]) => id)).toEqual([1]);
    exports.deliver(reply(sent[0]!));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map(([id]) => id)).toEqual([1, 2, 3]);
    expect(outcome).toEqual({ completed: [true, '6'], waits: 2 });
  });

  it('ends its wait when the host has no replies ready ("") and takes the next ones through deliver', async () => {
    const { exports, sent, outcome, reply, main } = start(() => '');
    void exports.run(main, settings);
    await new Promise((resolve) => setImmediate(resolve));
    for (let call = 0; call < 3; call++) {
      exports.deliver(reply(sent[call]!));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(outcome).toEqual({ completed: [true, '6'], waits: 2 });
  });

  it('never waits where the host gives no awaitReplies (QuickJS, the caller thread)', async () => {
    const { exports, sent, outcome, reply, main } = start();
    void exports.run(main, settings);
    for (let call = 0; call < 3; call++) {
      await new Promise((resolve) => setImmediate(resolve));
      exports.deliver(reply(sent[call]!));
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcome).toEqual({ completed: [true, '6'], waits: 0 });
  });
});

describe('the generator', () => {
  const file = (text: string, name = 'example.ts') => ({ name, text });
  const refusal = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(GuestSourceError);
      return (error as Error).message;
    }
    throw new Error('not refused');
  };

  it('strips types and keeps every line where it was', () => {
    const text =
      'const a: number = 1;\ninterface Shape {\n  size: number;\n}\nfunction size(shape: Shape): number {\n  return (shape as Shape).size!;\n}\n';
    const code = stripGuestFile(file(text));
    expect(code.split('\n')).toHaveLength(text.split('\n').length);
    expect(code.split('\n')[4]).toBe('function size(shape) {');
    expect(code.split('\n')[5]).toMatch(/^ {2}return \(shape\s*\)\.size;$/);
  });

  it('refuses module syntax, declare, enums, namespaces and parameter properties, naming file and line', () => {
    expect(refusal(() => stripGuestFile(file('const a = 1;\nexport const b = 2;\n')))).toBe(
      'example.ts:2: `export` is not guest code: the guest files share one scope',
    );
    expect(refusal(() => stripGuestFile(file("import { a } from './a.js';\n")))).toMatch(
      /^example\.ts:1: imports and exports are not guest code/,
    );
    expect(refusal(() => stripGuestFile(file('declare const X: string;\n')))).toBe(
      'example.ts:1: `declare` belongs in host.d.ts (what the host gives the guest)',
    );
    expect(refusal(() => stripGuestFile(file('\n\nenum Kind { A }\n')))).toMatch(/^example\.ts:3: an enum compiles to code of its own/);
    expect(refusal(() => stripGuestFile(file('namespace N { const a = 1; }\n')))).toMatch(/^example\.ts:1: a namespace/);
    expect(refusal(() => stripGuestFile(file('class K {\n  constructor(private size: number) {}\n}\n')))).toMatch(
      /^example\.ts:2: a parameter property/,
    );
  });

  it('reads host.d.ts as host functions and values, and refuses anything else there', () => {
    const host = readHostInterface(
      file('declare function send(id: number): void;\ninterface A { a: 1 }\ndeclare const LIMIT: number, NAME: string;\n', 'host.d.ts'),
    );
    expect(host).toEqual({ functions: ['send'], values: ['LIMIT', 'NAME'] });
    expect(refusal(() => readHostInterface(file('declare function send(): void;\nlet counter = 0;\n', 'host.d.ts')))).toMatch(
      /^host\.d\.ts:2: only `declare function`/,
    );
  });

  it('writes files evaluated on first use as a source taking every outside name, and refuses what would go wrong there', () => {
    const host = { functions: ['send'], values: ['LIMIT'] };
    const eager = file(
      'const seed = 2;\nfunction installGlobal(name: string, value: unknown) {}\nfunction installLazyGlobals(...args: unknown[]) {}\n',
      'a.ts',
    );
    const lazy = (text: string) => ({ ...file(text, 'web.ts'), onFirstUse: true });
    const last = file('const BOOTSTRAP_EXPORTS = {};\n', 'z.ts');
    const { bootstrap, firstUseSource } = assembleBootstrap(host, [
      eager,
      lazy("const twice = seed * LIMIT;\ninstallGlobal('Web', new Uint8Array(twice));\n"),
      last,
    ]);
    // One call: the names it installs and the values of the outside names; the code, a function of those
    // names (installGlobal last), stays out of the bootstrap.
    expect(bootstrap).toContain('installLazyGlobals(["Web"], [LIMIT, Uint8Array, seed]);');
    expect(firstUseSource).toBe(
      "(function (LIMIT, Uint8Array, seed, installGlobal) {'use strict';\n// src/web.ts\nconst twice = seed * LIMIT;\ninstallGlobal('Web', new Uint8Array(twice));\n})",
    );
    expect(bootstrap).not.toContain('twice');
    const mutable = file('let seed = 2;\nfunction installGlobal(name: string, value: unknown) {}\n', 'a.ts');
    expect(refusal(() => assembleBootstrap(host, [mutable, lazy("installGlobal('Web', seed);\n"), last]))).toMatch(
      /^web\.ts:1: `seed` is a let or var of an earlier file/,
    );
    expect(refusal(() => assembleBootstrap(host, [eager, lazy("installGlobal('Web', arguments);\n"), last]))).toMatch(
      /^web\.ts:1: `arguments` outside a function is not guest code/,
    );
    const naming = file('function installGlobal(name: string, value: unknown) {}\nconst early = () => Thing;\n', 'a.ts');
    expect(refusal(() => assembleBootstrap(host, [naming, lazy("class Thing {}\ninstallGlobal('Thing', Thing);\n"), last]))).toMatch(
      /^a\.ts:2: `Thing` is declared in a file evaluated on first use/,
    );
    expect(refusal(() => assembleBootstrap(host, [eager, lazy("installGlobal('Web', nowhere);\n"), last]))).toMatch(
      /^web\.ts:1: `nowhere` is declared nowhere/,
    );
  });

  it('assembles the files in order, after the host values, and returns BOOTSTRAP_EXPORTS', () => {
    const assembled = assembleBootstrap({ functions: ['send'], values: ['LIMIT'] }, [
      file('const a: number = LIMIT;\n', 'a.ts'),
      file('const BOOTSTRAP_EXPORTS = { a };\n', 'z.ts'),
    ]);
    expect(assembled).toEqual({
      bootstrap:
        "(function (send) {'use strict';\nconst LIMIT = /*host:LIMIT*/null;\n// src/a.ts\nconst a = LIMIT;\n// src/z.ts\nconst BOOTSTRAP_EXPORTS = { a };\nreturn BOOTSTRAP_EXPORTS;\n})",
      firstUseSource: '',
    });
    expect(refusal(() => assembleBootstrap({ functions: ['send'], values: [] }, [file('const a = 1;\n', 'a.ts')]))).toBe(
      'a.ts: the last guest file must declare `const BOOTSTRAP_EXPORTS`, what the bootstrap returns',
    );
    expect(
      refusal(() => assembleBootstrap({ functions: ['send'], values: [] }, [file('const BOOTSTRAP_EXPORTS = {};\nawait 1;\n', 'a.ts')])),
    ).toMatch(/^the assembled bootstrap is not valid ES2022 script/);
  });

  it('refuses a guest file it does not know where to run', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'guest-src-'));
    scratch.push(dir);
    cpSync(SOURCE_DIR, dir, { recursive: true });
    writeFileSync(path.join(dir, 'extra.ts'), 'const extra = 1;\n');
    expect(refusal(() => generateGuestCode(dir))).toMatch(/^extra\.ts in .*: not in GUEST_FILES of generate-guest-code\.ts/);
  });
});

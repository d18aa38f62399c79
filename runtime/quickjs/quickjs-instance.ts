/**
 * One QuickJS runtime and context with the guest code evaluated in it (the same bootstrap and Web
 * globals isolated-vm evaluates), made before a run arrives. The guest reaches the host through seven
 * functions that take and return numbers and strings only; everything else crosses as JSON text the
 * guest parses itself (one string copy, not a handle per property).
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { ResultMode } from '../../core/protocol.js';
import type { SpareInstance } from '../engine.js';
import { BOOTSTRAP_FUNCTION, FIRST_USE_SOURCE } from '../guest/generated/guest-code.js';
import { sandboxUrlOperation } from '../host/sandbox-url-host.js';

const QUICKJS_STACK_BYTES = 256 * 1024;
/**
 * The stack limit while the guest's JSON.stringify walks data that may nest deeply (the guest's
 * `jsonStack`, see runtime/guest/src/json.ts `stringifyWithinDepth`). QuickJS's stack check counts the
 * engine's own stack, where a level of JSON.stringify's recursion takes ~16 bytes, while the same level
 * takes ~190 bytes of Node's native stack; at 256 KiB the native stack runs out first (measured: 5,000
 * levels of nested arrays stringified, 10,000 overflowed Node's stack). At 16 KiB QuickJS stops
 * nested arrays or objects at ~960 levels, about the guest's depth limit (run-in-quickjs.ts
 * MAX_JSON_DEPTH), with an error the guest catches.
 */
const JSON_STACK_BYTES = 16 * 1024;

/** Wraps the host's writeLog so that a line crosses as JSON text: NULs and all, escaped. */
const NUL_SAFE_LOG =
  '(function (writeLog) { const stringify = JSON.stringify; return (level, message) => writeLog(level, stringify(String(message))); })';

function parseLine(json: string): string {
  try {
    const line: unknown = JSON.parse(json);
    return typeof line === 'string' ? line : '';
  } catch {
    return '';
  }
}

/** What the guest calls on the host; bound to a run by {@link QuickJsInstance.bind}. */
export interface GuestHandlers {
  send(id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode): void;
  writeLog(level: string, message: string): boolean;
  complete(ok: boolean, json: string): void;
  timer(start: boolean, id: number, delayMs: number, repeat: boolean): void;
  /** Whether the guest must stop now (QuickJS asks every few thousand instructions). */
  shouldInterrupt(): boolean;
}

/** A fault inside the engine rather than the program (a failed evaluation of the guest code, a trap). */
export class QuickJsFaultError extends Error {
  override readonly name = 'QuickJsFaultError';
}

export class QuickJsInstance implements SpareInstance {
  readonly engine = 'quickjs' as const;
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  readonly deliver: QuickJSHandle;
  readonly run: QuickJSHandle;
  readonly wake: QuickJSHandle;
  #handlers: GuestHandlers | undefined;
  #disposed = false;

  constructor(
    readonly module: QuickJSWASMModule,
    readonly memoryLimitMb: number,
  ) {
    this.runtime = module.newRuntime();
    this.runtime.setMemoryLimit(memoryLimitMb * 1024 * 1024);
    // QuickJS's own stack check must fire before the host's: each level of the program's recursion is
    // a few WebAssembly frames on Node's native stack too, and an overflow there unwinds the engine
    // halfway through its C code (measured: 512 KiB overflowed Node's stack, 256 KiB stops at ~1,500
    // levels of plain recursion with a RangeError the program can catch).
    this.runtime.setMaxStackSize(QUICKJS_STACK_BYTES);
    this.runtime.setInterruptHandler(() => this.#handlers?.shouldInterrupt() ?? false);
    this.context = this.runtime.newContext();
    const exports = this.#evaluateBootstrap();
    this.deliver = this.context.getProp(exports, 'deliver');
    this.run = this.context.getProp(exports, 'run');
    this.wake = this.context.getProp(exports, 'wake');
    exports.dispose();
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  bind(handlers: GuestHandlers): void {
    this.#handlers = handlers;
  }

  /** Bytes the runtime's objects, strings and other allocations hold now, as QuickJS counts them. */
  memoryUsed(): number {
    const usage = this.runtime.computeMemoryUsage();
    try {
      const value = this.context.getProp(usage, 'memory_used_size');
      const bytes = this.context.typeof(value) === 'number' ? this.context.getNumber(value) : 0;
      value.dispose();
      return bytes;
    } finally {
      usage.dispose();
    }
  }

  /** Forgets the instance without freeing it: after a fault inside the engine, freeing may fault again. */
  abandon(): void {
    this.#disposed = true;
    this.#handlers = undefined;
  }

  /**
   * Frees the context and runtime. Every handle this side holds is freed first: QuickJS asserts that
   * nothing is left when its runtime is freed. Throws when the engine faults on the way.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#handlers = undefined;
    for (const handle of [this.deliver, this.run, this.wake]) if (handle.alive) handle.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }

  #evaluateBootstrap(): QuickJSHandle {
    const { context } = this;
    const evaluated = context.evalCode(BOOTSTRAP_FUNCTION, 'bootstrap.js', { type: 'global', strict: true });
    if (evaluated.error !== undefined)
      throw new QuickJsFaultError(`the guest code did not evaluate: ${describeHandle(context, evaluated.error)}`);
    const callbacks = this.#hostFunctions();
    // writeLog takes the line as JSON text, encoded in the guest with the JSON.stringify of this moment.
    const wrapper = context.evalCode(NUL_SAFE_LOG, 'bootstrap.js', { type: 'global', strict: true });
    if (wrapper.error !== undefined)
      throw new QuickJsFaultError(`the guest code did not evaluate: ${describeHandle(context, wrapper.error)}`);
    const wrapped = context.callFunction(wrapper.value, context.undefined, [callbacks[1] as QuickJSHandle]);
    wrapper.value.dispose();
    if (wrapped.error !== undefined) throw new QuickJsFaultError(`the guest code did not start: ${describeHandle(context, wrapped.error)}`);
    callbacks[1]?.dispose();
    callbacks[1] = wrapped.value;
    const result = context.callFunction(evaluated.value, context.undefined, callbacks);
    evaluated.value.dispose();
    for (const callback of callbacks) callback.dispose();
    if (result.error !== undefined) throw new QuickJsFaultError(`the guest code did not start: ${describeHandle(context, result.error)}`);
    return result.value;
  }

  /** The seven host functions the bootstrap receives, in host.d.ts order (no `awaitReplies`: the host runs the guest's jobs itself). */
  #hostFunctions(): QuickJSHandle[] {
    const { context } = this;
    const text = (handle: QuickJSHandle | undefined): string =>
      handle !== undefined && context.typeof(handle) === 'string' ? context.getString(handle) : '';
    const optionalText = (handle: QuickJSHandle | undefined): string | undefined =>
      handle !== undefined && context.typeof(handle) === 'string' ? context.getString(handle) : undefined;
    const number = (handle: QuickJSHandle | undefined): number =>
      handle !== undefined && context.typeof(handle) === 'number' ? context.getNumber(handle) : Number.NaN;
    const flag = (handle: QuickJSHandle | undefined): boolean =>
      handle !== undefined && context.typeof(handle) === 'boolean' && context.dump(handle) === true;
    return [
      context.newFunction('send', (id, capability, fn, args, mode) => {
        this.#handlers?.send(number(id), text(capability), text(fn), text(args), text(mode) === 'full' ? 'full' : 'value');
      }),
      // The line arrives as JSON text (see NUL_SAFE_LOG): a string read out of the engine ends at its first NUL.
      context.newFunction('writeLog', (level, message) =>
        (this.#handlers?.writeLog(text(level), parseLine(text(message))) ?? false) ? context.true : context.false,
      ),
      context.newFunction('complete', (ok, json) => {
        this.#handlers?.complete(flag(ok), text(json));
      }),
      context.newFunction('timer', (start, id, delay, repeat) => {
        this.#handlers?.timer(flag(start), number(id), number(delay), flag(repeat));
      }),
      context.newFunction('url', (operation, a, b, c) =>
        context.newString(sandboxUrlOperation(optionalText(operation), optionalText(a), optionalText(b), optionalText(c))),
      ),
      context.newFunction('firstUseSource', () => context.newString(FIRST_USE_SOURCE)),
      context.newFunction('jsonStack', (small) => {
        this.runtime.setMaxStackSize(flag(small) ? JSON_STACK_BYTES : QUICKJS_STACK_BYTES);
      }),
    ];
  }
}

/** `name: message` of a thrown value, read without running any of the guest's code. */
export function describeHandle(context: QuickJSContext, handle: QuickJSHandle): string {
  const read = (key: string): string | undefined => {
    const value = context.getProp(handle, key);
    try {
      return context.typeof(value) === 'string' ? context.getString(value) : undefined;
    } finally {
      value.dispose();
    }
  };
  try {
    if (context.typeof(handle) !== 'object') return String(context.dump(handle));
    return `${read('name') ?? 'Error'}: ${read('message') ?? ''}`;
  } catch {
    return 'an unreadable error';
  } finally {
    handle.dispose();
  }
}

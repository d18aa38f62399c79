/**
 * What the guest gets from the host, declared for the type checker; nothing here is guest code.
 *
 * The `declare function`s are the bootstrap function's parameters, in this order: the engines pass the
 * host's callbacks positionally (isolated-vm/prepare-isolate.ts `prepareIsolate`, quickjs/quickjs-instance.ts
 * `#hostFunctions`). They take and return numbers, booleans and strings only.
 *
 * The `declare const`s are values the host decides; the generated module (../generated/guest-code.ts)
 * writes each as `const NAME = <its JSON>;` at the top of the bootstrap, from `HOST_VALUES`
 * (../host-values.ts), when that module loads.
 */

/** Hands call `id` to the host; `argsJson` is its arguments' JSON text. Not waited for on isolate threads. */
declare function send(id: number, capability: string, fn: string, argsJson: string, resultMode: 'full' | 'value'): void;
/** Writes a console line; false when it passed the run's output limit. */
declare function writeLog(level: string, message: string): boolean;
/** Ends the run: `json` is the result's JSON text, or the error's when `ok` is false. */
declare function complete(ok: boolean, json: string): void;
/** Arms (`start`) or clears timer `id` of the program. */
declare function timerHost(start: boolean, id: number, delayMs: number, repeat: boolean): void;
/** The host's WHATWG URL parser (see runtime/host/sandbox-url-host.ts): strings in, one string out. */
declare function urlHost(operation: 'parse' | 'set', a: string, b: string | undefined, c?: string): string;
/**
 * The text of the guest files evaluated on first use (the generated FIRST_USE_SOURCE): a function expression
 * of the outside names they use, asked for when a program first reads a Web global (src/helpers.ts
 * `installLazyGlobals`). Kept on the host, so a fresh context neither holds nor scans it.
 */
declare function firstUseSource(): string;
/**
 * Lowers the engine's stack limit while the guest's JSON.stringify walks data that may nest deeply
 * (`small`), or gives the program its whole stack again (see src/json.ts `stringifyWithinDepth`).
 * Passed only where the engine's native recursion there can outrun its own stack check (QuickJS);
 * elsewhere the parameter is undefined.
 */
declare function jsonStack(small: boolean): void;
/**
 * Waits for the host's next replies (a batch as `deliver` takes it), or '' when none came within a moment,
 * a timer is due or the run ended. Passed only where the isolate may block its thread while it waits
 * (isolated-vm on its own threads); elsewhere the parameter is undefined (check its type before a call).
 */
declare function awaitReplies(): string;

/** The global the capability proxies call (core/manifest.ts `SANDBOX_HOST_GLOBAL`). */
declare const HOST_GLOBAL: string;
/** runtime/host/sandbox-timers.ts */
declare const TIMER_LIMITS: { readonly maxPending: number; readonly maxPerRun: number; readonly maxDelayMs: number };
/** runtime/host/sandbox-url-host.ts */
declare const URL_LIMITS: { readonly maxInputChars: number; readonly maxHrefChars: number };
declare const URL_INVALID: string;
declare const URL_TOO_LONG: string;

/** What the bootstrap function returns to the host: the generator ends it with `return BOOTSTRAP_EXPORTS;` (see bootstrap-exports.ts). */
interface BootstrapExports {
  /** Settles calls: takes a JSON array of `[id, ok, payload]` triples. */
  deliver(batch: string): void;
  /** Runs the program's wrapped main with the run's settings and reports its result or error to `complete`. */
  run(main: () => unknown, settings: RunSettings): Promise<void>;
  /** Runs timer `id`; returns the delay to arm it again with (an interval) or -1. */
  wake(id: number): number;
}

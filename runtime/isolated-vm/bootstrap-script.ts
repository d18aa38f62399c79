/**
 * Evaluates the bootstrap in a fresh context, compiled from V8's code cache. The bootstrap (with the
 * Web platform globals, ~55 KB of JavaScript) is compiled in every isolate; from the cache that costs
 * about what the 15 KB bootstrap without the globals cost uncached (measured: ~1.1 ms less CPU per
 * isolate). The cache is made by this process, from this source, before any program ran in the
 * isolate that made it, so nothing a program does can reach it.
 */
import type ivm from 'isolated-vm';
import { BOOTSTRAP_FUNCTION } from '../guest/generated/guest-code.js';

let codeCache: ivm.ExternalCopy<ArrayBuffer> | undefined;

/** What the bootstrap returns to the host. */
export interface BootstrapExports {
  /** Settles calls: takes a JSON array of `[id, ok, payload]` triples. */
  deliver(batch: string): void;
  run(main: unknown, settings: unknown): void;
  /** Runs timer `id`; returns the delay to arm it again with (an interval) or -1. */
  wake(id: number): number;
}

/** Runs the bootstrap with `callbacks`; returns a reference to what it returns (`deliver`, `run`, `wake`). */
export function evaluateBootstrap(
  isolate: ivm.Isolate,
  context: ivm.Context,
  callbacks: ivm.Transferable[],
): ivm.Reference<BootstrapExports> {
  const script = compileBootstrap(isolate);
  const bootstrap = script.runSync(context, { reference: true }) as ivm.Reference<(...args: unknown[]) => unknown>;
  const exports = bootstrap.applySync(undefined, callbacks, { result: { reference: true } }) as ivm.Reference<BootstrapExports>;
  bootstrap.release();
  script.release();
  return exports;
}

/** isolated-vm sets these on the script it compiled (its typings omit them). */
type CompiledScript = ivm.Script & ivm.CachedDataResult & { cachedDataRejected?: boolean };

function compileBootstrap(isolate: ivm.Isolate): ivm.Script {
  if (codeCache !== undefined) {
    const script = isolate.compileScriptSync(BOOTSTRAP_FUNCTION, { cachedData: codeCache }) as CompiledScript;
    if (script.cachedDataRejected !== true) return script;
    // V8 refused it (it checks version and flags): make a new one below.
    script.release();
  }
  const script = isolate.compileScriptSync(BOOTSTRAP_FUNCTION, { produceCachedData: true }) as CompiledScript;
  codeCache = script.cachedData;
  return script;
}

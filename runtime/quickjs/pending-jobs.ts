/**
 * Runs a QuickJS runtime's pending jobs (promise continuations). Not `QuickJSRuntime.executePendingJobs`:
 * in quickjs-emscripten-core 0.32.0 it reads which context ran the jobs through an Int32Array view made
 * before the jobs ran; when WebAssembly memory grows during them (a program building a 5 MB result) the
 * view is detached, the read gives `undefined`, and the library then makes a new, phantom context for it
 * (it leaks, and a later dispose of the runtime crashes). This reads the out-pointer through a view made
 * after the jobs ran.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';

/** The members of QuickJSRuntime this needs (protected in its typings). */
interface RuntimeInternals {
  module: { _malloc(size: number): number; _free(pointer: number): void; HEAPU8: Uint8Array };
  ffi: {
    QTS_ExecutePendingJob(rt: number, maxJobs: number, contextOut: number): number;
    QTS_FreeValuePointerRuntime(rt: number, value: number): void;
  };
  rt: { value: number };
}

interface ContextInternals {
  ctx: { value: number };
  getMemory(rt: number): { heapValueHandle(pointer: number): QuickJSHandle };
}

export type JobsOutcome = { ok: true } | { ok: false; error: QuickJSHandle } | { ok: false; foreign: true };

/**
 * Runs every pending job of `runtime` (jobs queued by jobs included), in `context`, the only context
 * of the runtime. An exception a job could not catch (the interrupt of a timeout, out of memory in the
 * engine itself) ends the pumping and is returned for the caller to classify.
 */
export function runPendingJobs(runtime: QuickJSRuntime, context: QuickJSContext): JobsOutcome {
  const internals = runtime as unknown as RuntimeInternals;
  const rt = internals.rt.value;
  const out = internals.module._malloc(4);
  try {
    new Int32Array(internals.module.HEAPU8.buffer, out, 1)[0] = 0;
    const value = internals.ffi.QTS_ExecutePendingJob(rt, -1, out);
    // A fresh view: the jobs may have grown (and so replaced) the WebAssembly memory.
    const contextPointer = new Int32Array(internals.module.HEAPU8.buffer, out, 1)[0] ?? 0;
    if (contextPointer === 0) {
      internals.ffi.QTS_FreeValuePointerRuntime(rt, value);
      return { ok: true };
    }
    const owner = context as unknown as ContextInternals;
    if (contextPointer !== owner.ctx.value) {
      internals.ffi.QTS_FreeValuePointerRuntime(rt, value);
      return { ok: false, foreign: true };
    }
    const handle = owner.getMemory(rt).heapValueHandle(value);
    if (context.typeof(handle) === 'number') {
      handle.dispose();
      return { ok: true };
    }
    return { ok: false, error: handle };
  } finally {
    internals.module._free(out);
  }
}

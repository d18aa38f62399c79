/**
 * Runs one compiled program in a fresh isolate: links `@capabilities/*` to the build output, forwards
 * calls to the host handler (counted, throttled, copied as JSON), captures console output, and
 * enforces every limit. Used in-process and inside sandbox workers alike. Positions in the result
 * are still those of the compiled JavaScript; the caller maps them back.
 */
import { setMaxListeners } from 'node:events';
import ivm from 'isolated-vm';
import type { CapabilityCallHandler, CapabilityCallParams, ResultMode } from '../../core/protocol.js';
import { toWireError } from '../../core/protocol.js';
import type { LogLevel, RunError, RunLog, RunResult } from '../../core/run-result.js';
import { PROGRAM_FILENAME } from '../program/program-filename.js';
import type { RunLimits } from '../sandbox.js';
import { BOOTSTRAP_SOURCE } from './bootstrap-source.js';
import { ModuleResolutionError, resolveCapabilityModule } from './capability-modules.js';

export interface IsolateRunRequest {
  runId: string;
  /** The compiled program (an ES module whose default export is the wrapped main). */
  js: string;
  outDir: string;
  limits: RunLimits;
}

export interface IsolateRun {
  /** The outcome; settles as soon as the run ends, even if the isolate has not stopped yet. */
  result: Promise<RunResult>;
  /** Settles once the isolate no longer executes anything; never, if its thread hangs. */
  released: Promise<void>;
  /** Ends the run with `CANCELLED`. */
  cancel(message?: string): void;
  /** Stops the wall clock (see `CallContext.holdDeadline`); the returned function starts it again. */
  holdDeadline(): () => void;
}

interface QueuedCall {
  id: number;
  params: CapabilityCallParams;
}

const LOG_LEVELS = new Set<string>(['log', 'info', 'warn', 'error', 'debug']);

interface IsolateHandlers {
  send(id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode): void;
  writeLog(level: string, message: string): boolean;
  complete(ok: boolean, json: string): void;
}

/**
 * A fresh isolate with its context and bootstrap, made before a run arrives (creating them is most
 * of a trivial run's cost). Each one serves exactly one run.
 */
export interface PreparedIsolate {
  readonly memoryLimitMb: number;
  /** Whether the program runs on the calling thread (see {@link IsolateThreading}). */
  readonly threading: IsolateThreading;
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  /** Settles calls: takes a JSON array of `[id, ok, payload]` triples. */
  readonly deliver: ivm.Reference<(batch: string) => void>;
  readonly run: ivm.Reference<(main: unknown, settings: unknown) => void>;
  /** Connects the isolate's callbacks to a run; before that they do nothing. */
  bind(handlers: IsolateHandlers): void;
}

/**
 * Where the program executes. `'pool'`: on isolated-vm's threads, so the caller's event loop stays
 * free while the program computes (every call then costs two thread hops). `'caller'`: on the
 * calling thread, synchronously, each slice bounded by the run's remaining time (a call costs no
 * thread hop, but the caller's event loop waits while the program computes) — for a process that
 * does nothing else, such as a sandbox worker.
 */
export type IsolateThreading = 'pool' | 'caller';

export function prepareIsolate(memoryLimitMb: number, threading: IsolateThreading = 'pool'): PreparedIsolate {
  const isolate = new ivm.Isolate({ memoryLimit: memoryLimitMb });
  let handlers: IsolateHandlers | undefined;
  const context = isolate.createContextSync();
  const send = (...args: Parameters<IsolateHandlers['send']>): void => handlers?.send(...args);
  const callbacks = [
    // On the pool, not waited for by the isolate: a call costs one thread hop less. On the caller's
    // thread, a plain call: the host records it before the isolate goes on.
    threading === 'pool' ? new ivm.Callback(send, { ignored: true }) : new ivm.Callback(send),
    new ivm.Callback((level: string, message: string) => handlers?.writeLog(level, message) ?? false),
    new ivm.Callback((ok: boolean, json: string) => handlers?.complete(ok, json)),
  ];
  const bootstrap = context.evalClosureSync(BOOTSTRAP_SOURCE, callbacks, { result: { reference: true } });
  return {
    memoryLimitMb,
    threading,
    isolate,
    context,
    deliver: bootstrap.getSync('deliver', { reference: true }),
    run: bootstrap.getSync('run', { reference: true }),
    bind(next) {
      handlers = next;
    },
  };
}

/**
 * Starts a run, in `prepared` when it fits the run's memory limit (it is disposed otherwise).
 * Never rejects for faults of the program.
 */
export function startIsolateRun(request: IsolateRunRequest, onCall: CapabilityCallHandler, prepared?: PreparedIsolate, threading: IsolateThreading = 'pool'): IsolateRun {
  const { limits } = request;
  const started = performance.now();
  let deadline = started + limits.timeoutMs;
  // While the host holds the deadline (a person deciding an approval), the clock does not run.
  let holds = 0;
  let heldSince = 0;
  const remaining = (): number => Math.max(1, Math.ceil(deadline + (holds > 0 ? performance.now() - heldSince : 0) - performance.now()));
  const logs: RunLog[] = [];
  const queue: QueuedCall[] = [];
  const callController = new AbortController();
  // Every in-flight call may listen to the run's signal; hundreds at once are normal.
  setMaxListeners(0, callController.signal);
  let outputBytes = 0;
  let calls = 0;
  let activeCalls = 0;
  let pendingOperations = 0;
  let programStarted = false;
  let finished = false;

  let resolveResult!: (result: RunResult) => void;
  const result = new Promise<RunResult>((resolve) => (resolveResult = resolve));
  let resolveReleased!: () => void;
  const released = new Promise<void>((resolve) => (resolveReleased = resolve));

  if (prepared !== undefined && (prepared.memoryLimitMb !== limits.memoryLimitMb || prepared.threading !== threading || prepared.isolate.isDisposed)) {
    if (!prepared.isolate.isDisposed) prepared.isolate.dispose();
    prepared = undefined;
  }
  const ready = prepared ?? prepareIsolate(limits.memoryLimitMb, threading);
  const onCaller = threading === 'caller';
  const { isolate } = ready;
  const deliverReference = ready.deliver;

  const finish = (outcome: { success: boolean; result?: unknown; error?: RunError; timedOut?: boolean }): void => {
    if (finished) return;
    finished = true;
    clearTimeout(watchdog);
    queue.length = 0;
    callController.abort(new Error(`run ${request.runId} ended`));
    resolveResult({
      success: outcome.success,
      result: outcome.result ?? null,
      logs,
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      timedOut: outcome.timedOut ?? false,
      calls,
      durationMs: performance.now() - started,
    });
    // Not from inside a callback of the isolate: dispose once the current host turn is over.
    setImmediate(() => {
      if (!isolate.isDisposed) isolate.dispose();
      if (pendingOperations === 0) resolveReleased();
    });
  };
  const fail = (error: RunError, timedOut = false): void => finish({ success: false, error, timedOut });
  const timeout = (): void =>
    fail({ name: 'SandboxTimeoutError', code: 'TIMEOUT', message: `the program ran longer than its limit of ${limits.timeoutMs} ms and was stopped; make it do less per run or raise limits.timeoutMs` }, true);

  let watchdog = setTimeout(timeout, limits.timeoutMs);
  const holdDeadline = (): (() => void) => {
    if (finished) return () => undefined;
    if (holds++ === 0) {
      heldSince = performance.now();
      clearTimeout(watchdog);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--holds > 0 || finished) return;
      deadline += performance.now() - heldSince;
      watchdog = setTimeout(timeout, Math.max(1, deadline - performance.now()));
    };
  };

  /** Classifies a failure of an isolate operation (compile, link, evaluate, apply). */
  const onIsolateFailure = (error: unknown): void => {
    if (finished) return;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof ModuleResolutionError) return fail({ name: 'ModuleResolutionError', code: error.code, message: error.message });
    if (/memory limit/i.test(message)) {
      return fail({ name: 'SandboxMemoryError', code: 'MEMORY_LIMIT', message: `the program used more than its memory limit of ${limits.memoryLimitMb} MB and was stopped; use less memory or raise limits.memoryLimitMb` });
    }
    if (/execution timed out/i.test(message)) return timeout();
    if (isolate.isDisposed) {
      return fail({ name: 'SandboxError', code: 'SANDBOX_ERROR', message: `the isolate stopped unexpectedly: ${message}` });
    }
    const stack = error instanceof Error ? error.stack : undefined;
    const name = error instanceof Error ? error.name : 'Error';
    fail({ name, code: name === 'SyntaxError' ? 'SYNTAX_ERROR' : 'RUNTIME_ERROR', message, ...(stack === undefined ? {} : { stack }) });
  };

  // One check per settled operation (not coalesced): the pending immediate also keeps the event
  // loop from sleeping between calls, which measurably lowers per-call latency.
  const scheduleStallCheck = (): void => {
    setImmediate(checkStalled);
  };
  const isStalled = (): boolean => !finished && programStarted && pendingOperations === 0 && activeCalls === 0 && queue.length === 0 && outbox.length === 0;
  const checkStalled = (): void => {
    if (!isStalled()) return;
    // Look again a little later: a call the isolate just sent may still be on its way to this thread.
    setTimeout(() => {
      if (!isStalled()) return;
      fail({ name: 'SandboxDeadlockError', code: 'DEADLOCK', message: 'the program is waiting for a promise that can never settle: no capability call is in flight and the sandbox has no timers' });
    }, 10);
  };

  const track = <T>(operation: Promise<T>): Promise<T> => {
    pendingOperations++;
    const settle = (): void => {
      pendingOperations--;
      if (pendingOperations > 0) return;
      if (finished) resolveReleased();
      else scheduleStallCheck();
    };
    operation.then(settle, settle);
    return operation;
  };

  // Replies that are ready in the same turn of the event loop enter the isolate together: each entry
  // into the isolate is a thread hop, and with many parallel calls one hop per reply serialises them.
  let outbox: string[] = [];
  const flush = (): void => {
    const batch = outbox;
    outbox = [];
    if (finished || batch.length === 0) return;
    const json = `[${batch.join(',')}]`;
    if (!onCaller) {
      track(deliverReference.apply(undefined, [json], { timeout: remaining() })).catch(onIsolateFailure);
      return;
    }
    // The program's continuations run now, bounded by the time the run has left (unlike an
    // asynchronous apply, a synchronous one's timeout also covers the microtasks it starts).
    try {
      deliverReference.applySync(undefined, [json], { timeout: remaining() });
    } catch (error) {
      onIsolateFailure(error);
    }
    scheduleStallCheck();
  };
  const reply = (id: number, ok: boolean, json: string): void => {
    if (finished) return;
    // On the caller's thread, entering the isolate costs no hop: replies settled by the same
    // microtask run go in together without waiting for another turn of the event loop.
    if (outbox.length === 0) {
      if (onCaller) queueMicrotask(flush);
      else setImmediate(flush);
    }
    // `json` is JSON text already, so the batch is valid JSON without encoding it twice.
    outbox.push(`[${id},${ok},${json}]`);
  };

  const perform = async ({ id, params }: QueuedCall): Promise<void> => {
    activeCalls++;
    try {
      const value = await onCall(params, { runId: request.runId, signal: callController.signal, holdDeadline });
      let json: string;
      try {
        json = JSON.stringify(value ?? null);
      } catch (error) {
        throw new Error(`the result of ${params.capability}.${params.function} is not JSON-serialisable: ${String(error)}`);
      }
      reply(id, true, json);
    } catch (error) {
      reply(id, false, JSON.stringify(toWireError(error)));
    } finally {
      activeCalls--;
      pump();
      scheduleStallCheck();
    }
  };

  const pump = (): void => {
    while (!finished && activeCalls < limits.maxConcurrentCalls && queue.length > 0) void perform(queue.shift() as QueuedCall);
  };

  const callLimitError = (capability: string, fn: string): string =>
    JSON.stringify({
      code: -32000,
      message: `call to ${capability}.${fn} refused: this run already made its limit of ${limits.maxCalls} capability calls; batch the work or raise limits.maxCalls`,
      data: { code: 'CALL_LIMIT_EXCEEDED', capability, function: fn },
    });

  const argumentLimitError = (capability: string, fn: string, size: string): string =>
    JSON.stringify({
      code: -32000,
      message: `arguments of ${capability}.${fn} are ${size} bytes of JSON, over the limit of ${limits.maxArgumentBytes} bytes per call (limits.maxArgumentBytes); pass less per call (split the data over several calls) or raise limits.maxArgumentBytes`,
      data: { code: 'INVALID_ARGUMENTS', capability, function: fn, details: { maxArgumentBytes: limits.maxArgumentBytes } },
    });

  /** Called by the isolate without waiting (the isolate counts calls too, so it cannot flood this). */
  const send = (id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode): void => {
    if (finished) return;
    if (calls >= limits.maxCalls) return reply(id, false, callLimitError(capability, fn));
    // The isolate refuses what is too long in characters; multi-byte text is measured here.
    const argumentBytes = Buffer.byteLength(argsJson, 'utf8');
    if (argumentBytes > limits.maxArgumentBytes) return reply(id, false, argumentLimitError(capability, fn, String(argumentBytes)));
    calls++;
    queue.push({ id, params: { capability, function: fn, args: JSON.parse(argsJson) as unknown, resultMode } });
    pump();
  };

  const writeLog = (level: string, message: string): boolean => {
    if (finished) return false;
    const bytes = Buffer.byteLength(message, 'utf8') + 1;
    if (outputBytes + bytes > limits.maxOutputBytes) {
      fail({ name: 'SandboxOutputError', code: 'OUTPUT_LIMIT', message: `console output passed the limit of ${limits.maxOutputBytes} bytes (logs and result together); the run was stopped. Log less, or raise limits.maxOutputBytes` });
      return false;
    }
    outputBytes += bytes;
    logs.push({ level: LOG_LEVELS.has(level) ? (level as LogLevel) : 'log', message });
    return true;
  };

  const complete = (ok: boolean, json: string): void => {
    if (finished) return;
    if (!ok) return fail(JSON.parse(json) as RunError);
    if (outputBytes + Buffer.byteLength(json, 'utf8') > limits.maxOutputBytes) {
      return fail({ name: 'SandboxOutputError', code: 'OUTPUT_LIMIT', message: `the result (${Buffer.byteLength(json, 'utf8')} bytes of JSON) with the logs passes the output limit of ${limits.maxOutputBytes} bytes; return less, or raise limits.maxOutputBytes` });
    }
    finish({ success: true, result: JSON.parse(json) as unknown });
  };

  const modulePaths = new WeakMap<ivm.Module, string>();
  const modules = new Map<string, ivm.Module>();
  const resolveModule = (specifier: string, referrer: ivm.Module): ivm.Module => {
    const resolved = resolveCapabilityModule(request.outDir, specifier, modulePaths.get(referrer));
    let module = modules.get(resolved.path);
    if (module === undefined) {
      module = isolate.compileModuleSync(resolved.source, { filename: specifier.startsWith('@') ? specifier : resolved.path });
      modulePaths.set(module, resolved.path);
      modules.set(resolved.path, module);
    }
    return module;
  };

  // Linking runs no code of the program (its body is the wrapped main), so it is done
  // synchronously: each asynchronous isolate operation costs a thread hop.
  const start = async (): Promise<void> => {
    ready.bind({ send, writeLog, complete });
    const program = isolate.compileModuleSync(request.js, { filename: PROGRAM_FILENAME });
    program.instantiateSync(ready.context, resolveModule);
    program.evaluateSync({ timeout: remaining() });
    const main = program.namespace.getSync('default', { reference: true });
    if (finished) return;
    programStarted = true;
    const settings = new ivm.ExternalCopy({
      maxCalls: limits.maxCalls,
      callLimitError: callLimitError('{capability}', '{function}'),
      maxArgumentBytes: limits.maxArgumentBytes,
      argumentLimitError: argumentLimitError('{capability}', '{function}', 'at least {size}'),
    }).copyInto();
    if (!onCaller) {
      await track(ready.run.apply(undefined, [main.derefInto(), settings], { timeout: remaining() }));
      return;
    }
    ready.run.applySync(undefined, [main.derefInto(), settings], { timeout: remaining(), result: { reference: true } }).release();
    scheduleStallCheck();
  };
  start().catch(onIsolateFailure);

  return {
    result,
    released,
    holdDeadline,
    cancel(message = 'the run was cancelled') {
      fail({ name: 'SandboxCancelledError', code: 'CANCELLED', message });
    },
  };
}

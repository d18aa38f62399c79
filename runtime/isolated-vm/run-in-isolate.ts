/**
 * Runs one compiled program in a fresh isolate: links `@capabilities/*` to the build output, hands the
 * program's calls and logs to a port, delivers replies, and enforces the limits that need the isolate
 * (wall clock, CPU time, memory, output). Used in-process and inside sandbox workers alike. Nothing
 * here parses a call's arguments or a reply's value: they cross as JSON text. Positions in the result
 * are still those of the compiled JavaScript; the caller maps them back.
 */
import type ivm from 'isolated-vm';
import type { ResultMode } from '../../core/protocol.js';
import { utf8SizeOver } from '../../core/utf8-size.js';
import type { LogLevel, RunError } from '../../core/run-result.js';
import { argumentLimitError, callLimitError, maxQueuedArgumentBytes, nameLimitError, queuedArgumentsError } from '../host/call-gate.js';
import { createOutputBudget, errorBytes, logEntryBytes, outputLimitError } from '../host/output-budget.js';
import { BOOTSTRAP_REFUSAL_CODES, boundedRunError, programMayReport, readReportedError, wireErrorCode } from '../host/run-error-codes.js';
import { PROGRAM_FILENAME } from '../program/program-filename.js';
import { programFrames } from '../host/program-frames.js';
import type { EngineOutcome, EnginePort, EngineRun, EngineRunRequest, SpareInstance } from '../engine.js';
import { MAX_NAME } from '../worker-protocol.js';
import { evaluateBootstrap } from './bootstrap-script.js';
import { loadIsolatedVm } from './load-isolated-vm.js';
import { ModuleResolutionError, resolveCapabilityModule } from '../host/capability-modules.js';
import { createRunTimers } from '../host/sandbox-timers.js';
import { sandboxUrlOperation } from '../host/sandbox-url-host.js';

/** The engine contract's names for a run, as this file has always called them. */
export type IsolateRunRequest = EngineRunRequest;
export type IsolatePort = EnginePort;
export type IsolateOutcome = EngineOutcome;
export type IsolateRun = EngineRun;

const LOG_LEVELS = new Set<string>(['log', 'info', 'warn', 'error', 'debug']);

interface IsolateHandlers {
  send(id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode): void;
  writeLog(level: string, message: string): boolean;
  complete(ok: boolean, json: string): void;
  /** Arms (`start`) or clears timer `id` of the program; numbers only. */
  timer(start: boolean, id: number, delayMs: number, repeat: boolean): void;
}

/**
 * A fresh isolate with its context and bootstrap, made before a run arrives (creating them is most
 * of a trivial run's cost). Each one serves exactly one run.
 */
export interface PreparedIsolate extends SpareInstance {
  readonly engine: 'isolated-vm';
  readonly memoryLimitMb: number;
  /** Whether the program runs on the calling thread (see {@link IsolateThreading}). */
  readonly threading: IsolateThreading;
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  /** Settles calls: takes a JSON array of `[id, ok, payload]` triples. */
  readonly deliver: ivm.Reference<(batch: string) => void>;
  readonly run: ivm.Reference<(main: unknown, settings: unknown) => void>;
  /** Runs timer `id`; returns the delay to arm it again with (an interval) or -1. */
  readonly wake: ivm.Reference<(id: number) => number>;
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

/** Isolates of runs in progress on isolated-vm's threads (see {@link disposeAtExit}). */
const runningOnThreads = new Set<ivm.Isolate>();
let exitHookInstalled = false;

/**
 * At exit, isolated-vm joins its threads: one still executing a program (a run in the background, a
 * loop) would keep the process from ever ending. Disposing the isolates of the runs in progress stops
 * them. A thread waiting in one of the isolate's synchronous callbacks (a log line, a timer, URL
 * parsing) is not released by this; the end of a run is therefore handed to the host outside them (see
 * `toHost` in startIsolateRun).
 */
function disposeAtExit(isolate: ivm.Isolate): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const running of runningOnThreads) if (!running.isDisposed) running.dispose();
    });
  }
  runningOnThreads.add(isolate);
}

export function prepareIsolate(memoryLimitMb: number, threading: IsolateThreading = 'pool'): PreparedIsolate {
  const ivm = loadIsolatedVm();
  const isolate = new ivm.Isolate({ memoryLimit: memoryLimitMb });
  let handlers: IsolateHandlers | undefined;
  const context = isolate.createContextSync();
  const send = (...args: Parameters<IsolateHandlers['send']>): void => handlers?.send(...args);
  const complete = (ok: boolean, json: string): void => handlers?.complete(ok, json);
  const callbacks = [
    // On the pool, not waited for by the isolate: a call costs one thread hop less. On the caller's
    // thread, a plain call: the host records it before the isolate goes on.
    threading === 'pool' ? new ivm.Callback(send, { ignored: true }) : new ivm.Callback(send),
    new ivm.Callback((level: string, message: string) => handlers?.writeLog(level, message) ?? false),
    // Its answer is not used: on the pool it does not hold an isolate thread while the host reads it.
    threading === 'pool' ? new ivm.Callback(complete, { ignored: true }) : new ivm.Callback(complete),
    // Synchronous in both threadings: the host knows a timer before the isolate goes on, so the
    // deadlock check never misses one.
    new ivm.Callback((start: boolean, id: number, delayMs: number, repeat: boolean) => handlers?.timer(start, id, delayMs, repeat)),
    // Strings in, one string out (see sandbox-url-host.ts); it needs no run.
    new ivm.Callback(sandboxUrlOperation),
  ];
  const bootstrap = evaluateBootstrap(isolate, context, callbacks);
  return {
    engine: 'isolated-vm',
    dispose: () => {
      if (!isolate.isDisposed) isolate.dispose();
    },
    memoryLimitMb,
    threading,
    isolate,
    context,
    deliver: bootstrap.getSync('deliver', { reference: true }),
    run: bootstrap.getSync('run', { reference: true }),
    wake: bootstrap.getSync('wake', { reference: true }),
    bind(next) {
      handlers = next;
    },
  };
}

/**
 * Starts a run, in `prepared` when it fits the run's memory limit (it is disposed otherwise).
 * Never rejects for faults of the program.
 */
export function startIsolateRun(request: IsolateRunRequest, port: IsolatePort, prepared?: PreparedIsolate, threading: IsolateThreading = 'pool'): IsolateRun {
  const { limits } = request;
  const started = performance.now();
  let deadline = started + limits.timeoutMs;
  // While the host holds the deadline (a person deciding an approval), the wall clock does not run;
  // the isolate's CPU time still counts against the same limit, so a program cannot compute for free.
  let holds = 0;
  let heldSince = 0;
  const budget = createOutputBudget(limits.maxOutputBytes);
  /** Calls handed to the port and not yet answered, with the characters of their arguments. */
  const outstanding = new Map<number, number>();
  /**
   * Characters of the arguments of the calls not yet answered, and their bound: what the host holds at
   * most (calls in flight and waiting ones, in bytes, each character at least one). Past it the host
   * refuses calls anyway; refused here, a program that makes a thousand 1 MiB calls in one slice does
   * not have a GiB of frames queued in the worker, outside its isolate's memory limit.
   */
  let unansweredChars = 0;
  const maxUnansweredChars = maxQueuedArgumentBytes(limits) + limits.maxConcurrentCalls * limits.maxArgumentBytes;
  /** Codes of the tool errors the host sent: the only codes besides its own a program may end with. */
  const sentCodes = new Set<string>();
  let pendingOperations = 0;
  let programStarted = false;
  let finished = false;

  let resolveOutcome!: (outcome: IsolateOutcome) => void;
  const outcome = new Promise<IsolateOutcome>((resolve) => (resolveOutcome = resolve));
  let resolveReleased!: () => void;
  const released = new Promise<void>((resolve) => (resolveReleased = resolve));

  if (prepared !== undefined && (prepared.memoryLimitMb !== limits.memoryLimitMb || prepared.threading !== threading || prepared.isolate.isDisposed)) {
    if (!prepared.isolate.isDisposed) prepared.isolate.dispose();
    prepared = undefined;
  }
  const ready = prepared ?? prepareIsolate(limits.memoryLimitMb, threading);
  const onCaller = threading === 'caller';
  /**
   * Hands the host the end of a run (its outcome, then its release). On isolate threads the run ends
   * inside an isolate callback; the caller's continuation runs a turn later, once the isolate thread
   * is free: a `process.exit()` there would otherwise wait forever for that thread (seen: a script that
   * exited right after its last in-process run hung). Log lines and calls are not deferred: they keep
   * their order, and an onLog handler still runs inside the program's console call.
   */
  const toHost = (deliver: () => void): void => {
    if (onCaller) deliver();
    else setImmediate(deliver);
  };
  const { isolate } = ready;
  if (!onCaller) disposeAtExit(isolate);
  const deliverReference = ready.deliver;
  /** The program's pending timers (see sandbox-timers.ts); wakeTimer runs one that is due. */
  const timers = createRunTimers((id) => wakeTimer(id));
  const cpuBefore = isolate.cpuTime;
  const cpuUsedMs = (): number => Number(isolate.cpuTime - cpuBefore) / 1e6;
  /** Milliseconds of wall clock (held time excluded) or CPU time the run has left, whichever is less. */
  const timeLeft = (): number => Math.min(deadline + (holds > 0 ? performance.now() - heldSince : 0) - performance.now(), limits.timeoutMs - cpuUsedMs());
  const remaining = (): number => Math.max(1, Math.ceil(timeLeft()));

  const finish = (result: Omit<IsolateOutcome, 'durationMs' | 'timedOut'> & { timedOut?: boolean }, options: { stopNow?: boolean } = {}): void => {
    if (finished) return;
    finished = true;
    clearTimeout(watchdog);
    clearInterval(cpuWatch);
    // Timers still pending when the run ends are dropped: none fires after it.
    timers.clearAll();
    outbox = [];
    const ended: IsolateOutcome = { ...result, timedOut: result.timedOut ?? false, durationMs: performance.now() - started };
    toHost(() => resolveOutcome(ended));
    // A program refused from inside one of its callbacks may go on running below this frame (a loop
    // that catches the output error): on the caller's thread, disposing ends it now (measured: within a
    // few calls). Otherwise dispose once the current turn is over — off the path of the result (a
    // dispose costs ~1.5 ms).
    if (options.stopNow === true && onCaller && !isolate.isDisposed) isolate.dispose();
    // On the caller's thread the isolate executes only inside this thread's synchronous calls: once the
    // current one returns, it has stopped. Said at once, with the outcome: a co-resident run computing
    // in the next callback (a timer) no longer holds the report back past the host's grace, which
    // killed the worker with every run in it.
    if (onCaller) process.nextTick(resolveReleased);
    setImmediate(() => {
      runningOnThreads.delete(isolate);
      if (!isolate.isDisposed) isolate.dispose();
      if (pendingOperations === 0) resolveReleased();
    });
  };
  const fail = (error: RunError, timedOut = false, options: { stopNow?: boolean } = {}): void => finish({ success: false, error: boundedRunError(error), timedOut }, options);
  const timeout = (): void => {
    const cpuBound = holds > 0 || cpuUsedMs() >= limits.timeoutMs;
    fail({
      name: 'SandboxTimeoutError',
      code: 'TIMEOUT',
      message: cpuBound
        ? `the program computed for longer than its limit of ${limits.timeoutMs} ms of CPU time and was stopped (time spent waiting for an approval is not counted, computing is); make it do less per run or raise its limit (sandbox.timeoutMs in the config, --timeout of agent-spaces run)`
        : `the program ran longer than its limit of ${limits.timeoutMs} ms and was stopped; make it do less per run or raise its limit (sandbox.timeoutMs in the config, --timeout of agent-spaces run)`,
    }, true);
  };

  let watchdog = setTimeout(timeout, limits.timeoutMs);
  let cpuWatch: NodeJS.Timeout | undefined;
  const holdDeadline = (): (() => void) => {
    if (finished) return () => undefined;
    if (holds++ === 0) {
      heldSince = performance.now();
      clearTimeout(watchdog);
      // On isolate threads a program may compute while its call waits for a person: watch its CPU time.
      if (!onCaller) cpuWatch = setInterval(() => {
        if (cpuUsedMs() >= limits.timeoutMs) timeout();
      }, 100);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--holds > 0 || finished) return;
      clearInterval(cpuWatch);
      deadline += performance.now() - heldSince;
      watchdog = setTimeout(timeout, Math.max(1, deadline - performance.now()));
    };
  };

  /**
   * Classifies a failure of an isolate operation (compile, link, evaluate, apply). The host's codes are
   * decided from the host's state, never from message text alone: a link error quotes an import name,
   * and a program can throw any message it likes.
   */
  const onIsolateFailure = (error: unknown): void => {
    if (finished) return;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof ModuleResolutionError) return fail({ name: 'ModuleResolutionError', code: error.code, message: error.message });
    if (isolate.isDisposed) {
      // Only isolated-vm disposes an isolate during a run (this code disposes it after finishing).
      if (/memory limit/i.test(message)) {
        return fail({ name: 'SandboxMemoryError', code: 'MEMORY_LIMIT', message: `the program used more than its memory limit of ${limits.memoryLimitMb} MB and was stopped; use less memory or raise sandbox.memoryLimitMb in the config` });
      }
      return fail({ name: 'SandboxError', code: 'SANDBOX_ERROR', message: 'the isolate stopped unexpectedly' });
    }
    // A slice's timeout is what the run had left when it began: a real one leaves (almost) nothing.
    if (message === 'Script execution timed out.' && timeLeft() <= 25) return timeout();
    const name = error instanceof Error ? error.name : 'Error';
    const stack = error instanceof Error && typeof error.stack === 'string' ? programFrames(error.stack) : undefined;
    fail({ name, code: name === 'SyntaxError' ? 'SYNTAX_ERROR' : 'RUNTIME_ERROR', message, ...(stack === undefined ? {} : { stack }) });
  };

  // One check per settled operation (not coalesced): the pending immediate also keeps the event
  // loop from sleeping between calls, which measurably lowers per-call latency.
  const scheduleStallCheck = (): void => {
    setImmediate(checkStalled);
  };
  const isStalled = (): boolean => !finished && programStarted && pendingOperations === 0 && outstanding.size === 0 && outbox.length === 0 && timers.size === 0;
  const checkStalled = (): void => {
    if (!isStalled()) return;
    // Look again a little later: a call the isolate just sent may still be on its way to this thread.
    setTimeout(() => {
      if (!isStalled()) return;
      fail({ name: 'SandboxDeadlockError', code: 'DEADLOCK', message: 'the program is waiting for a promise that can never settle: no capability call is in flight and no timer is pending' });
    }, 10);
  };

  const track = <T>(operation: Promise<T>): Promise<T> => {
    pendingOperations++;
    const settle = (): void => {
      pendingOperations--;
      if (pendingOperations > 0) return;
      // After the outcome, which reaches the host a turn later on isolate threads.
      if (finished) toHost(resolveReleased);
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
    const chars = outstanding.get(id);
    if (finished || chars === undefined) return;
    outstanding.delete(id);
    unansweredChars -= chars;
    if (!ok) noteSentCode(json);
    // On the caller's thread, entering the isolate costs no hop: replies settled by the same
    // microtask run go in together without waiting for another turn of the event loop.
    if (outbox.length === 0) {
      if (onCaller) queueMicrotask(flush);
      else setImmediate(flush);
    }
    // `json` is JSON text already, so the batch is valid JSON without encoding it twice.
    outbox.push(`[${id},${ok},${json}]`);
  };
  // A due timer enters the isolate on its own (as in Node, the program's microtasks run between two
  // timers); an interval is armed again only after its callback ran, with the delay the isolate says.
  const wakeTimer = (id: number): void => {
    if (finished) return;
    if (!onCaller) {
      track(ready.wake.apply(undefined, [id], { timeout: remaining() })).then((next) => timers.rearm(id, next), (error: unknown) => {
        timers.rearm(id, -1);
        onIsolateFailure(error);
      });
      return;
    }
    let next = -1;
    try {
      next = ready.wake.applySync(undefined, [id], { timeout: remaining() });
    } catch (error) {
      onIsolateFailure(error);
    }
    timers.rearm(id, next);
    scheduleStallCheck();
  };
  // The isolate's timer requests are applied from a promise job, on a fresh stack. On the caller's
  // thread the isolate shares this thread's stack, and a program can call setTimeout with it all but
  // full: Node's own timer code then overflowed halfway through an update, and the timers of every other
  // run in the worker stopped firing. A promise job is queued by V8 builtins, which either fail before
  // doing anything or do it all. The job runs before the stall check (an immediate) looks at the timers.
  let timerRequests: (readonly [start: boolean, id: number, delayMs: number, repeat: boolean])[] = [];
  const applyTimerRequests = (): void => {
    const requests = timerRequests;
    timerRequests = [];
    for (const [start, id, delayMs, repeat] of requests) {
      if (finished) return;
      if (start) timers.set(id, delayMs, repeat);
      else timers.clear(id);
    }
  };
  const onTimer = (start: boolean, id: number, delayMs: number, repeat: boolean): void => {
    if (finished || typeof id !== 'number') return;
    if (timerRequests.length === 0) void Promise.resolve().then(applyTimerRequests);
    timerRequests.push([start === true, id, Number(delayMs), repeat === true]);
  };
  const noteSentCode = (json: string): void => {
    const code = wireErrorCode(json);
    if (code !== undefined) sentCodes.add(code);
  };

  /** Called by the isolate, which refuses calls past maxCalls and maxArgumentBytes itself (in characters). */
  const send = (id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode): void => {
    if (finished || typeof id !== 'number' || outstanding.has(id)) return;
    const text = String(argsJson);
    outstanding.set(id, text.length);
    unansweredChars += text.length;
    if (unansweredChars > maxUnansweredChars) {
      return reply(id, false, JSON.stringify(queuedArgumentsError(String(capability), String(fn), `${unansweredChars - text.length} characters of arguments in calls not answered yet`, maxUnansweredChars)));
    }
    // A name the host would not accept in a frame's header is refused here, for this call only (the
    // host kills a worker that sends one, and every run in it).
    const name = [String(capability), String(fn)].find((text) => text.length > MAX_NAME);
    if (name !== undefined) {
      return reply(id, false, JSON.stringify(nameLimitError(name.length, MAX_NAME)));
    }
    // The isolate measured characters; a character can be three UTF-8 bytes. Refused here, the bytes
    // never reach the pipe (where a frame past the host's limit would cost the whole worker).
    const bytes = utf8SizeOver(text, limits.maxArgumentBytes);
    if (bytes !== undefined) return reply(id, false, JSON.stringify(argumentLimitError(String(capability), String(fn), bytes, limits.maxArgumentBytes)));
    port.call(id, String(capability), String(fn), text, resultMode === 'full' ? 'full' : 'value');
  };

  const writeLog = (level: string, message: string): boolean => {
    if (finished) return false;
    const known: LogLevel = LOG_LEVELS.has(level) ? (level as LogLevel) : 'log';
    const text = String(message);
    if (!budget.take(logEntryBytes(known, text))) {
      fail(outputLimitError('console output', limits.maxOutputBytes), false, { stopNow: true });
      return false;
    }
    port.log(known, text);
    return true;
  };

  const complete = (ok: boolean, json: string): void => {
    if (finished) return;
    if (!ok) {
      const error = readReportedError(String(json), programMayReport(sentCodes));
      if (!budget.take(errorBytes(error))) return fail(outputLimitError(`the program's error (${errorBytes(error)} bytes with its stack)`, limits.maxOutputBytes));
      return fail(error);
    }
    const text = String(json);
    // The result is the last output: it needs only to fit in what is left, and its bytes are not taken
    // from the budget (nothing is counted after it).
    const bytes = utf8SizeOver(text, budget.max - budget.used);
    if (bytes !== undefined) return fail(outputLimitError(`the result (${bytes} bytes of JSON)`, limits.maxOutputBytes));
    finish({ success: true, resultJson: text });
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
    ready.bind({ send, writeLog, complete, timer: onTimer });
    const program = isolate.compileModuleSync(request.js, { filename: PROGRAM_FILENAME });
    program.instantiateSync(ready.context, resolveModule);
    program.evaluateSync({ timeout: remaining() });
    const main = program.namespace.getSync('default', { reference: true });
    if (finished) return;
    programStarted = true;
    const settings = new (loadIsolatedVm().ExternalCopy)({
      maxCalls: limits.maxCalls,
      // Templates the bootstrap fills in for the calls it refuses itself: the host's own messages.
      callLimitError: JSON.stringify(callLimitError('{capability}', '{function}', limits.maxCalls)),
      maxArgumentBytes: limits.maxArgumentBytes,
      argumentLimitError: JSON.stringify(argumentLimitError('{capability}', '{function}', 'at least {size}', limits.maxArgumentBytes)),
    }).copyInto();
    for (const code of BOOTSTRAP_REFUSAL_CODES) sentCodes.add(code);
    if (!onCaller) {
      await track(ready.run.apply(undefined, [main.derefInto(), settings], { timeout: remaining() }));
      return;
    }
    ready.run.applySync(undefined, [main.derefInto(), settings], { timeout: remaining(), result: { reference: true } }).release();
    scheduleStallCheck();
  };
  start().catch(onIsolateFailure);

  return {
    outcome,
    released,
    reply,
    holdDeadline,
    abort: (error) => fail(error),
    cancel(message = 'the run was cancelled') {
      fail({ name: 'SandboxCancelledError', code: 'CANCELLED', message });
    },
  };
}


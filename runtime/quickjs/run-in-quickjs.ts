/**
 * Runs one compiled program in a QuickJS instance on the calling thread. The engine is synchronous: the
 * host enters it (start, a batch of replies, a due timer), it runs until it has nothing left to do, and
 * the host then runs its pending jobs until there are none. A capability call returns a promise inside
 * the guest at once and goes to the port; its reply is delivered later, so calls really run in parallel
 * and an approval waits without replaying anything. The limits: memory by QuickJS's allocator limit,
 * time by its interrupt handler (wall clock, with held time excluded, and time spent inside the engine
 * against the same limit), output and calls as in every engine.
 */
import type { QuickJSHandle, QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { ResultMode } from '../../core/protocol.js';
import type { RunError } from '../../core/run-result.js';
import type { EngineOutcome, EnginePort, EngineRun, EngineRunRequest } from '../engine.js';
import { ModuleResolutionError, resolveCapabilityModule } from '../host/capability-modules.js';
import { programFrames } from '../host/program-frames.js';
import { boundedRunError, memoryLimitError } from '../host/run-error-codes.js';
import { createRunTimers, type RunTimers } from '../host/sandbox-timers.js';
import { PROGRAM_FILENAME } from '../program/program-filename.js';
import { knownLogLevel, RunLedger } from '../run-ledger.js';
import { reserveMemory } from './load-quickjs.js';
import { runPendingJobs } from './pending-jobs.js';
import { QuickJsInstance, type GuestHandlers } from './quickjs-instance.js';

/**
 * How often, at most, the host measures the program's memory (it walks the whole heap: measured at 15.8%
 * of the CPU of sequential awaited calls when done after every entry), while it computes and after its
 * entries; an entry the limit skipped is measured at most this long after it ended. A walk of a large
 * heap costs more (measured: 52% of the CPU of a run building a 5.7 MB value, walked every 5 ms), so
 * the gap after a walk is also {@link MEMORY_CHECK_SHARE} times what the walk took, up to
 * {@link MEMORY_CHECK_MAX_MS}: the walks stay a few per cent of the engine's time. Between two walks
 * the WebAssembly memory reservation (see reserveMemory) bounds what the program can take.
 */
const MEMORY_CHECK_MS = 5;
const MEMORY_CHECK_SHARE = 20;
const MEMORY_CHECK_MAX_MS = 250;

/** Imports the program through the module loader and runs its default export with the run's settings. */
const STARTER = `(function (run, settingsJson, report) {
  const settings = JSON.parse(settingsJson);
  import(${JSON.stringify(PROGRAM_FILENAME)}).then((namespace) => run(namespace.default, settings), report).then(undefined, report);
})`;

/**
 * Starts a run in `spare` when it fits (it is freed otherwise). `onFault` hears of a fault of the
 * engine itself (a trap, Node's own stack overflowing inside it): its WebAssembly instance is not to be
 * trusted any more.
 */
export function startQuickJsRun(
  module: QuickJSWASMModule,
  request: EngineRunRequest,
  port: EnginePort,
  spare: QuickJsInstance | undefined,
  onFault: () => void,
): EngineRun {
  return new QuickJsRun(module, request, port, spare, onFault).handle();
}

class QuickJsRun {
  readonly #request: EngineRunRequest;
  readonly #port: EnginePort;
  readonly #instance: QuickJsInstance;
  /** The run's clock (wall and the time spent inside the engine), output budget, error codes and calls. */
  readonly #ledger: RunLedger;
  readonly #timers: RunTimers;
  /** Milliseconds spent executing inside the engine (its CPU time: it runs on this thread). */
  #engineMs = 0;
  #enteredAt: number | undefined;
  #outbox: string[] = [];
  #timerRequests: (readonly [start: boolean, id: number, delayMs: number, repeat: boolean])[] = [];
  #programStarted = false;
  #finished = false;
  #timedOutInside = false;
  #memoryExceeded = false;
  #memoryCheckedAt = 0;
  /** The gap before the next measurement: {@link MEMORY_CHECK_MS}, more after a costly walk. */
  #memoryCheckGapMs = MEMORY_CHECK_MS;
  /** When the engine was last left, and the pending measurement of what an entry left (see #afterEntry). */
  #exitedAt = 0;
  #memoryRecheck: NodeJS.Timeout | undefined;
  /** A module the program imported that the loader refused, with the host's own reason. */
  #resolutionError: ModuleResolutionError | undefined;
  readonly #modules = new Map<string, { path: string; source: string }>();
  #resolveOutcome!: (outcome: EngineOutcome) => void;
  readonly #outcome = new Promise<EngineOutcome>((resolve) => (this.#resolveOutcome = resolve));
  #resolveReleased!: () => void;
  readonly #released = new Promise<void>((resolve) => (this.#resolveReleased = resolve));

  readonly #onFault: () => void;
  readonly #unreserve: () => void;

  constructor(
    module: QuickJSWASMModule,
    request: EngineRunRequest,
    port: EnginePort,
    spare: QuickJsInstance | undefined,
    onFault: () => void,
  ) {
    this.#request = request;
    this.#onFault = onFault;
    this.#port = port;
    const { limits } = request;
    this.#ledger = new RunLedger(limits, {
      onDeadline: () => this.#timeout(),
      cpuUsedMs: () => this.#engineMs + (this.#enteredAt === undefined ? 0 : performance.now() - this.#enteredAt),
    });
    this.#timers = createRunTimers((id) => this.#wakeTimer(id));
    if (spare !== undefined && (spare.memoryLimitMb !== limits.memoryLimitMb || spare.disposed || spare.module !== module)) {
      disposeQuietly(spare);
      spare = undefined;
    }
    this.#instance = spare ?? new QuickJsInstance(module, limits.memoryLimitMb);
    // Twice the limit: the host trips MEMORY_LIMIT on QuickJS's own count first; the reservation only
    // bounds what the WebAssembly memory may grow to between two of its checks (see reserveMemory).
    this.#unreserve = reserveMemory(this.#instance.module, 2 * limits.memoryLimitMb * 1024 * 1024);
    this.#instance.bind(this.#guestHandlers());
    this.#instance.runtime.setModuleLoader(
      (name) => this.#loadModule(name),
      (base, requested) => this.#normalizeModule(base, requested),
    );
    // Off the caller's stack: a run's outcome is never settled inside the call that started it.
    queueMicrotask(() => this.#start());
  }

  handle(): EngineRun {
    return {
      outcome: this.#outcome,
      released: this.#released,
      reply: (id, ok, json) => this.#reply(id, ok, json),
      holdDeadline: () => this.#ledger.hold(),
      abort: (error) => this.#fail(error),
      cancel: (message = 'the run was cancelled') => this.#fail({ name: 'SandboxCancelledError', code: 'CANCELLED', message }),
    };
  }

  #timeout(): void {
    this.#fail(this.#ledger.timeoutError(), true);
  }

  // ------------------------------------------------------------------ ending

  #finish(result: Omit<EngineOutcome, 'durationMs' | 'timedOut'> & { timedOut?: boolean }): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#ledger.close();
    clearTimeout(this.#memoryRecheck);
    this.#timers.clearAll();
    this.#outbox = [];
    const ended: EngineOutcome = { ...result, timedOut: result.timedOut ?? false, durationMs: this.#ledger.elapsedMs() };
    this.#resolveOutcome(ended);
    // Inside the engine (a host function ended the run) the instance is freed once the engine has
    // returned: the interrupt handler stops the guest at its next check.
    if (this.#enteredAt === undefined) this.#release();
  }

  #release(): void {
    setImmediate(() => {
      disposeQuietly(this.#instance);
      this.#unreserve();
      this.#resolveReleased();
    });
  }

  #fail(error: RunError, timedOut = false): void {
    this.#finish({ success: false, error: boundedRunError(error), timedOut });
  }

  // ------------------------------------------------------------------ entering the engine

  /**
   * Calls guest function `fn` with `args`, then runs the pending jobs; returns its result handle
   * (the caller disposes it) or `undefined` when it failed (the run was failed with the reason).
   */
  #enter(fn: QuickJSHandle, args: QuickJSHandle[]): QuickJSHandle | undefined {
    if (this.#finished) return undefined;
    const { context, runtime } = this.#instance;
    this.#enteredAt = performance.now();
    let value: QuickJSHandle | undefined;
    try {
      const result = context.callFunction(fn, context.undefined, args);
      if (result.error !== undefined) {
        this.#onEngineFailure(result.error);
        return undefined;
      }
      value = result.value;
      const jobs = runPendingJobs(runtime, context);
      if (!jobs.ok) {
        value.dispose();
        value = undefined;
        if ('error' in jobs) this.#onEngineFailure(jobs.error);
        else this.#fail({ name: 'SandboxError', code: 'SANDBOX_ERROR', message: 'the sandbox engine ran a job of another context' });
      }
      return value;
    } catch (error) {
      // A fault of the engine itself (a trap, the host's stack overflowing inside it): the engine was
      // unwound halfway through its C code, so nothing of this instance is touched again.
      this.#instance.abandon();
      this.#onFault();
      this.#fail(
        isHostStackOverflow(error)
          ? NATIVE_STACK_OVERFLOW
          : {
              name: 'SandboxError',
              code: 'SANDBOX_ERROR',
              message: `the sandbox engine failed: ${error instanceof Error ? error.message : String(error)}`,
            },
      );
      return undefined;
    } finally {
      this.#exitedAt = performance.now();
      this.#engineMs += this.#exitedAt - (this.#enteredAt ?? this.#exitedAt);
      this.#enteredAt = undefined;
      if (!this.#finished) this.#afterEntry();
      if (this.#finished) this.#release();
      else this.#scheduleStallCheck();
    }
  }

  /** Classifies what escaped the guest: an interrupt (the time limit), out of memory, or an error of a module. */
  #onEngineFailure(error: QuickJSHandle): void {
    if (this.#finished) return error.dispose();
    if (this.#memoryExceeded) {
      error.dispose();
      return this.#memoryLimit();
    }
    if (this.#timedOutInside) {
      error.dispose();
      return this.#timeout();
    }
    const { context } = this.#instance;
    const read = (key: string): string | undefined => {
      const value = context.getProp(error, key);
      const text = context.typeof(value) === 'string' ? context.getString(value) : undefined;
      value.dispose();
      return text;
    };
    const isObject = context.typeof(error) === 'object';
    const name = (isObject ? read('name') : undefined) ?? 'Error';
    const message = isObject ? (read('message') ?? '') : String(context.dump(error));
    const stack = isObject ? read('stack') : undefined;
    error.dispose();
    if (name === 'InternalError' && message === 'interrupted') return this.#timeout();
    if (name === 'InternalError' && message === 'out of memory') return this.#memoryLimit();
    this.#fail({
      name,
      code: name === 'SyntaxError' ? 'SYNTAX_ERROR' : 'RUNTIME_ERROR',
      message,
      ...(stack === undefined ? {} : { stack: programFrames(`${name}: ${message}\n${stack}`) }),
    });
  }

  /**
   * QuickJS's own allocator limit does not hold in this build (measured: a 16 MB limit let programs
   * hold 24-104 MB, arrays and strings alike), so the host also measures the runtime's memory, at most
   * once per gap (see {@link MEMORY_CHECK_MS}) while the program computes and after its entries (see #afterEntry).
   */
  #overMemory(force = false): boolean {
    const now = performance.now();
    if (this.#memoryExceeded) return true;
    if (!force && now - this.#memoryCheckedAt < this.#memoryCheckGapMs) return false;
    const used = this.#instance.memoryUsed();
    this.#memoryCheckedAt = performance.now();
    const walkMs = this.#memoryCheckedAt - now;
    this.#memoryCheckGapMs = Math.min(MEMORY_CHECK_MAX_MS, Math.max(MEMORY_CHECK_MS, walkMs * MEMORY_CHECK_SHARE));
    if (used <= this.#request.limits.memoryLimitMb * 1024 * 1024) return false;
    this.#memoryExceeded = true;
    return true;
  }

  /**
   * Measures what the entry just ended left, at most once per gap (see {@link MEMORY_CHECK_MS}); one the
   * rate skipped is measured by a timer at most a gap after (a program that allocates in short entries
   * and then waits is still stopped). Between two measurements the WebAssembly memory reservation bounds
   * growth.
   */
  #afterEntry(): void {
    if (this.#overMemory()) return this.#memoryLimit();
    if (this.#memoryCheckedAt >= this.#exitedAt || this.#memoryRecheck !== undefined) return;
    this.#memoryRecheck = setTimeout(() => {
      this.#memoryRecheck = undefined;
      if (this.#finished || this.#memoryCheckedAt >= this.#exitedAt) return;
      if (this.#overMemory(true)) this.#memoryLimit();
    }, this.#memoryCheckGapMs);
  }

  #memoryLimit(): void {
    this.#fail(memoryLimitError(this.#request.limits.memoryLimitMb));
  }

  #start(): void {
    const { context } = this.#instance;
    if (this.#finished) return;
    const starter = context.evalCode(STARTER, 'starter.js', { type: 'global', strict: true });
    if (starter.error !== undefined) return this.#onEngineFailure(starter.error);
    const settings = context.newString(
      JSON.stringify({
        ...this.#ledger.guestCallLimits(),
        callSites: true,
        // QuickJS's JSON.stringify recurses in C without its stack check: deep data would use up the
        // host's stack and end the run uncatchably, so the bootstrap refuses it first (a catchable error).
        maxJsonDepth: MAX_JSON_DEPTH,
      }),
    );
    const report = context.newFunction('report', (error) => {
      this.#onImportFailure(error === undefined ? undefined : error.dup());
    });
    this.#ledger.programStarted();
    this.#programStarted = true;
    this.#enter(starter.value, [this.#instance.run, settings, report])?.dispose();
    for (const handle of [starter.value, settings, report]) handle.dispose();
  }

  /** The program or one of its modules failed to load, link or evaluate. */
  #onImportFailure(error: QuickJSHandle | undefined): void {
    if (this.#resolutionError !== undefined) {
      error?.dispose();
      const { code, message } = this.#resolutionError;
      return this.#fail({ name: 'ModuleResolutionError', code, message });
    }
    if (error === undefined) return this.#fail({ name: 'Error', code: 'RUNTIME_ERROR', message: 'the program failed to load' });
    this.#onEngineFailure(error);
  }

  #normalizeModule(base: string, requested: string): string | { error: Error } {
    try {
      if (base === 'starter.js' && requested === PROGRAM_FILENAME) return PROGRAM_FILENAME;
      const referrer = base === PROGRAM_FILENAME ? undefined : this.#modules.get(base)?.path;
      const resolved = resolveCapabilityModule(this.#request.outDir, requested, referrer);
      const name = requested.startsWith('@') ? requested : resolved.path;
      this.#modules.set(name, resolved);
      return name;
    } catch (error) {
      if (error instanceof ModuleResolutionError) this.#resolutionError ??= error;
      return { error: error instanceof ModuleResolutionError ? new Error(error.message) : new Error('the module could not be resolved') };
    }
  }

  #loadModule(name: string): string | { error: Error } {
    if (name === PROGRAM_FILENAME) return this.#request.js;
    const module = this.#modules.get(name);
    return module === undefined ? { error: new Error(`module "${name}" is not in the build`) } : module.source;
  }

  // ------------------------------------------------------------------ from the guest

  #guestHandlers(): GuestHandlers {
    return {
      send: (id, capability, fn, argsJson, resultMode) => this.#send(id, capability, fn, argsJson, resultMode),
      writeLog: (level, message) => this.#writeLog(level, message),
      complete: (ok, json) => this.#complete(ok, json),
      timer: (start, id, delayMs, repeat) => this.#onTimer(start, id, delayMs, repeat),
      shouldInterrupt: () => {
        // Also while the guest only computes: a worker told to stop acts here (see EnginePort.checkIn).
        this.#port.checkIn?.();
        if (this.#finished) return true;
        if (this.#overMemory()) return true;
        if (this.#ledger.timeLeft() > 0) return false;
        this.#timedOutInside = true;
        return true;
      },
    };
  }

  /** The guest refuses calls past maxCalls and maxArgumentBytes itself (in characters); the ledger refuses the rest. */
  #send(id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode): void {
    this.#port.checkIn?.();
    if (this.#finished) return;
    const admission = this.#ledger.admitCall(id, capability, fn, argsJson);
    if (admission.kind === 'admitted') this.#port.call(id, capability, fn, argsJson, resultMode);
    else if (admission.kind === 'refused') this.#reply(id, false, JSON.stringify(admission.error));
  }

  #writeLog(level: string, message: string): boolean {
    this.#port.checkIn?.();
    if (this.#finished) return false;
    const known = knownLogLevel(level);
    if (!this.#ledger.takeLog(known, message)) {
      this.#fail(this.#ledger.outputLimit('console output'));
      return false;
    }
    this.#port.log(known, message);
    return true;
  }

  #complete(ok: boolean, json: string): void {
    if (this.#finished) return;
    if (!ok) {
      const error = this.#ledger.readProgramError(json);
      // The host's interrupt, caught where the guest reports a callback's error (a microtask, a timer)
      // instead of unwinding to the host: whatever the guest reports once the host interrupted it is that
      // interrupt's doing — 'interrupted', or another error of the code it cut short (seen at load 9: an
      // async call interrupted inside queueMicrotask surfaced as TypeError "not a function") — and the run
      // ends as the host decided, by its state, never by the message: past its memory, or at its time limit.
      if (this.#memoryExceeded) return this.#memoryLimit();
      if (this.#timedOutInside) return this.#timeout();
      if (error.name === 'InternalError' && error.message === 'out of memory') return this.#memoryLimit();
      if (error.name === 'InternalError' && error.message === 'string too long') Object.assign(error, STRING_TOO_LONG);
      // QuickJS's stacks are frames only: the header every engine's stack starts with, as V8 writes it.
      if (error.stack !== undefined && /^\s+at /.test(error.stack)) error.stack = `${error.name}: ${error.message}\n${error.stack}`;
      return this.#fail(this.#ledger.endWithError(error));
    }
    const overLimit = this.#ledger.resultOverLimit(json);
    if (overLimit !== undefined) return this.#fail(overLimit);
    this.#finish({ success: true, resultJson: json });
  }

  /** Applied from a promise job, on a fresh stack (see run-in-isolate.ts for why). */
  #onTimer(start: boolean, id: number, delayMs: number, repeat: boolean): void {
    this.#port.checkIn?.();
    if (this.#finished || !Number.isSafeInteger(id)) return;
    if (this.#timerRequests.length === 0) void Promise.resolve().then(() => this.#applyTimerRequests());
    this.#timerRequests.push([start, id, delayMs, repeat]);
  }

  #applyTimerRequests(): void {
    const requests = this.#timerRequests;
    this.#timerRequests = [];
    for (const [start, id, delayMs, repeat] of requests) {
      if (this.#finished) return;
      if (start) this.#timers.set(id, delayMs, repeat);
      else this.#timers.clear(id);
    }
  }

  // ------------------------------------------------------------------ to the guest

  #reply(id: number, ok: boolean, json: string): void {
    if (this.#finished || !this.#ledger.answerCall(id, ok, json)) return;
    // Replies settled in the same microtask run enter the engine together.
    if (this.#outbox.length === 0) queueMicrotask(() => this.#flush());
    this.#outbox.push(`[${id},${ok},${json}]`);
  }

  #flush(): void {
    const batch = this.#outbox;
    this.#outbox = [];
    if (this.#finished || batch.length === 0) return;
    const { context } = this.#instance;
    const json = context.newString(`[${batch.join(',')}]`);
    this.#enter(this.#instance.deliver, [json])?.dispose();
    json.dispose();
  }

  #wakeTimer(id: number): void {
    if (this.#finished) return;
    const { context } = this.#instance;
    const handle = context.newNumber(id);
    const next = this.#enter(this.#instance.wake, [handle]);
    handle.dispose();
    let delay = -1;
    if (next !== undefined) {
      if (context.typeof(next) === 'number') delay = context.getNumber(next);
      next.dispose();
    }
    this.#timers.rearm(id, delay);
  }

  // ------------------------------------------------------------------ stalls

  #scheduleStallCheck(): void {
    setImmediate(() => this.#checkStalled());
  }

  #isStalled(): boolean {
    return (
      !this.#finished &&
      this.#programStarted &&
      this.#ledger.unansweredCalls === 0 &&
      this.#outbox.length === 0 &&
      this.#timers.size === 0 &&
      this.#timerRequests.length === 0
    );
  }

  #checkStalled(): void {
    if (!this.#isStalled()) return;
    setTimeout(() => {
      if (!this.#isStalled()) return;
      this.#fail({
        name: 'SandboxDeadlockError',
        code: 'DEADLOCK',
        message: 'the program is waiting for a promise that can never settle: no capability call is in flight and no timer is pending',
      });
    }, 10);
  }
}

/** Data nested deeper than this is refused by the bootstrap (measured: JSON.stringify of 10,000 levels overflowed the host's stack, 3,000 did not). */
const MAX_JSON_DEPTH = 1000;

/** QuickJS's "InternalError: string too long" (a string past its 2^30 − 1 characters), as V8 says it. */
const STRING_TOO_LONG = { name: 'RangeError', message: "Invalid string length: a string passed the engine's maximum length" };

/**
 * The program's own fault, not the engine's: recursion inside the engine's C code (JSON.stringify or
 * JSON.parse of deep nesting, String() of nested arrays, a long chain of bound functions) can use up
 * the host's native stack before QuickJS's own stack check fires. The instance is still abandoned;
 * the run ends as an uncaught RangeError would (isolated-vm lets the program catch this one).
 */
const NATIVE_STACK_OVERFLOW: RunError = {
  name: 'RangeError',
  code: 'RUNTIME_ERROR',
  message:
    "Maximum call stack size exceeded: the program nests too deeply (values, JSON or function chains) for the engine's native code; on QuickJS this stops the run and cannot be caught",
};

function isHostStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && error.message === 'Maximum call stack size exceeded';
}

function disposeQuietly(instance: QuickJsInstance): void {
  try {
    instance.dispose();
  } catch {
    // The engine faulted while freeing it; loadQuickJs's callers get a fresh module on the next fault.
  }
}

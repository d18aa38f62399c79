/**
 * Runs one compiled program in a fresh isolate: links `@capabilities/*` to the build output, hands the
 * program's calls and logs to a port, delivers replies, and enforces the limits that need the isolate
 * (wall clock, CPU time, memory, output). Used in-process and inside sandbox workers alike. Nothing
 * here parses a call's arguments or a reply's value: they cross as JSON text. Positions in the result
 * are still those of the compiled JavaScript; the caller maps them back.
 */
import type ivm from 'isolated-vm';
import type { ResultMode } from '../../core/protocol.js';
import type { RunError } from '../../core/run-result.js';
import { boundedRunError, memoryLimitError } from '../host/run-error-codes.js';
import { PROGRAM_FILENAME } from '../program/program-filename.js';
import { programFrames } from '../host/program-frames.js';
import type { EngineOutcome, EnginePort, EngineRun, EngineRunRequest } from '../engine.js';
import { knownLogLevel, RunLedger, type GuestCallLimits } from '../run-ledger.js';
import { loadIsolatedVm } from './load-isolated-vm.js';
import { ModuleResolutionError, resolveCapabilityModule } from '../host/capability-modules.js';
import { createRunTimers, type RunTimers } from '../host/sandbox-timers.js';
import { disposeAtExit, forgetAtExit, prepareIsolate, type IsolateThreading, type PreparedIsolate } from './prepare-isolate.js';

/** The engine contract's names for a run, as this file has always called them. */
export type IsolateRunRequest = EngineRunRequest;
export type IsolatePort = EnginePort;
export type IsolateOutcome = EngineOutcome;
export type IsolateRun = EngineRun;

/**
 * Starts a run, in `prepared` when it fits the run's memory limit (it is disposed otherwise).
 * Never rejects for faults of the program.
 */
export function startIsolateRun(
  request: IsolateRunRequest,
  port: IsolatePort,
  prepared?: PreparedIsolate,
  threading: IsolateThreading = 'pool',
): IsolateRun {
  return new IsolatedVmRun(request, port, prepared, threading).handle();
}

type Finished = Omit<IsolateOutcome, 'durationMs' | 'timedOut'> & { timedOut?: boolean };

/**
 * How long an isolate waiting for replies inside its delivery (on isolate threads) holds its thread
 * before it lets the task end: a call answered sooner costs no new entry into the isolate; a slower one
 * gets the usual delivery, and the thread is free for other isolates meanwhile.
 */
const REPLY_WAIT_MS = 1;

/**
 * What the bootstrap's run() takes (src/calls.ts `RunSettings` of the guest): every field, so that no
 * read of the guest's falls through to a prototype. The QuickJS-only checks are off here: V8 appends the
 * awaiting frames to an error itself, and its JSON.stringify checks its own stack.
 */
interface RunSettings extends GuestCallLimits {
  callSites: false;
  maxJsonDepth: 0;
}

/** One run in one isolate, from its start to its release. */
class IsolatedVmRun {
  readonly #request: IsolateRunRequest;
  readonly #port: IsolatePort;
  /**
   * The run's clock, output budget, error codes and calls. While the host holds the deadline (a person
   * deciding an approval), the wall clock does not run; the isolate's CPU time still counts against the
   * same limit, so a program cannot compute for free.
   */
  readonly #ledger: RunLedger;
  #pendingOperations = 0;
  #programStarted = false;
  #finished = false;
  #resolveOutcome!: (outcome: IsolateOutcome) => void;
  readonly #outcome = new Promise<IsolateOutcome>((resolve) => (this.#resolveOutcome = resolve));
  #resolveReleased!: () => void;
  readonly #released = new Promise<void>((resolve) => (this.#resolveReleased = resolve));
  readonly #ready: PreparedIsolate;
  readonly #isolate: ivm.Isolate;
  readonly #onCaller: boolean;
  /** The program's pending timers (see sandbox-timers.ts); #wakeTimer runs one that is due. */
  readonly #timers: RunTimers;
  readonly #cpuBefore: bigint;
  #cpuWatch: NodeJS.Timeout | undefined;
  // Replies waiting to enter the isolate. On isolate threads at most one delivery is in flight: a reply
  // that finds none goes in at once (a sequential call waits for no turn of the event loop), and the
  // replies that arrive meanwhile enter together when it is done (each entry is a thread hop, and with
  // many parallel calls one hop per reply would serialise them).
  #outbox: string[] = [];
  #delivering = false;
  // On isolate threads, the isolate waiting for replies inside its delivery (the guest's awaitReplies):
  // the next batch goes to it instead of a new delivery. Released with '' after a moment without one, when
  // a timer is due (the timer's entry waits behind the isolate's task) and when the run ends.
  #waiter: ((batch: string) => void) | undefined;
  #waiterTimeout: NodeJS.Timeout | undefined;
  // The isolate's timer requests are applied from a promise job, on a fresh stack. On the caller's
  // thread the isolate shares this thread's stack, and a program can call setTimeout with it all but
  // full: Node's own timer code then overflowed halfway through an update, and the timers of every other
  // run in the worker stopped firing. A promise job is queued by V8 builtins, which either fail before
  // doing anything or do it all. The job runs before the stall check (an immediate) looks at the timers.
  #timerRequests: (readonly [start: boolean, id: number, delayMs: number, repeat: boolean])[] = [];
  readonly #modulePaths = new WeakMap<ivm.Module, string>();
  readonly #modules = new Map<string, ivm.Module>();
  /** When the slice of the operation #start is in ends (see #slice). */
  #startSliceEndsAt = Number.POSITIVE_INFINITY;

  constructor(request: IsolateRunRequest, port: IsolatePort, prepared: PreparedIsolate | undefined, threading: IsolateThreading) {
    this.#request = request;
    this.#port = port;
    const { limits } = request;
    // The clock starts before the isolate is made (as the run's duration always has).
    this.#ledger = new RunLedger(limits, {
      onDeadline: () => this.#timeout(),
      cpuUsedMs: () => this.#cpuUsedMs(),
      onHoldChange: (held) => this.#watchCpuWhileHeld(held),
    });
    if (
      prepared !== undefined &&
      (prepared.memoryLimitMb !== limits.memoryLimitMb || prepared.threading !== threading || prepared.isolate.isDisposed)
    ) {
      if (!prepared.isolate.isDisposed) prepared.isolate.dispose();
      prepared = undefined;
    }
    this.#ready = prepared ?? prepareIsolate(limits.memoryLimitMb, threading);
    this.#onCaller = threading === 'caller';
    this.#isolate = this.#ready.isolate;
    if (!this.#onCaller) disposeAtExit(this.#isolate);
    this.#timers = createRunTimers((id) => this.#wakeTimer(id));
    this.#cpuBefore = this.#isolate.cpuTime;
    this.#start().catch((error: unknown) => this.#onIsolateFailure(error, this.#startSliceEndsAt));
  }

  handle(): IsolateRun {
    return {
      outcome: this.#outcome,
      released: this.#released,
      reply: (id, ok, json) => this.#reply(id, ok, json),
      holdDeadline: () => this.#ledger.hold(),
      abort: (error) => this.#fail(error),
      // At once on the caller's thread: a cancel may come from inside the program's own call (a worker
      // told to stop while a slice holds its event loop).
      cancel: (message = 'the run was cancelled') =>
        this.#fail({ name: 'SandboxCancelledError', code: 'CANCELLED', message }, false, { stopNow: true }),
    };
  }

  // ------------------------------------------------------------------ clock

  #cpuUsedMs(): number {
    return Number(this.#isolate.cpuTime - this.#cpuBefore) / 1e6;
  }

  #remaining(): number {
    return Math.max(1, Math.ceil(this.#ledger.timeLeft()));
  }

  /**
   * An isolate operation's time limit (what the run has left) and when it ends on the wall clock:
   * isolated-vm counts the limit on the wall clock, so a slice that passes its end was stopped by the
   * run's own limit even where the run's CPU budget still shows time left (a loaded machine).
   */
  #slice(): { timeout: number; endsAt: number } {
    const timeout = this.#remaining();
    return { timeout, endsAt: performance.now() + timeout };
  }

  #timeout(): void {
    this.#fail(this.#ledger.timeoutError(), true);
  }

  /** On isolate threads a program may compute while its call waits for a person: its CPU time is watched meanwhile. */
  #watchCpuWhileHeld(held: boolean): void {
    clearInterval(this.#cpuWatch);
    if (!held || this.#onCaller) return;
    // An isolate waiting for replies in its delivery stops waiting: its limit counts the wall clock.
    this.#releaseWaiter();
    this.#cpuWatch = setInterval(() => {
      if (this.#cpuUsedMs() >= this.#request.limits.timeoutMs) this.#timeout();
    }, 100);
  }

  // ------------------------------------------------------------------ ending

  /**
   * Hands the host the end of a run (its outcome, then its release). On isolate threads the run ends
   * inside an isolate callback; the caller's continuation runs a turn later, once the isolate thread
   * is free: a `process.exit()` there would otherwise wait forever for that thread (seen: a script that
   * exited right after its last in-process run hung). Log lines and calls are not deferred: they keep
   * their order, and an onLog handler still runs inside the program's console call.
   */
  #toHost(deliver: () => void): void {
    if (this.#onCaller) deliver();
    else setImmediate(deliver);
  }

  #finish(result: Finished, options: { stopNow?: boolean } = {}): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#ledger.close();
    clearInterval(this.#cpuWatch);
    // Timers still pending when the run ends are dropped: none fires after it.
    this.#timers.clearAll();
    this.#outbox = [];
    this.#releaseWaiter();
    const ended: IsolateOutcome = { ...result, timedOut: result.timedOut ?? false, durationMs: this.#ledger.elapsedMs() };
    this.#toHost(() => this.#resolveOutcome(ended));
    const isolate = this.#isolate;
    // A program refused from inside one of its callbacks may go on running below this frame (a loop
    // that catches the output error): on the caller's thread, disposing ends it now (measured: within a
    // few calls). Otherwise dispose once the current turn is over — off the path of the result (a
    // dispose costs ~1.5 ms).
    if (options.stopNow === true && this.#onCaller && !isolate.isDisposed) isolate.dispose();
    // On the caller's thread the isolate executes only inside this thread's synchronous calls: once the
    // current one returns, it has stopped. Said at once, with the outcome: a co-resident run computing
    // in the next callback (a timer) no longer holds the report back past the host's grace, which
    // killed the worker with every run in it.
    if (this.#onCaller) process.nextTick(this.#resolveReleased);
    setImmediate(() => {
      forgetAtExit(isolate);
      if (!isolate.isDisposed) isolate.dispose();
      if (this.#pendingOperations === 0) this.#resolveReleased();
    });
  }

  #fail(error: RunError, timedOut = false, options: { stopNow?: boolean } = {}): void {
    this.#finish({ success: false, error: boundedRunError(error), timedOut }, options);
  }

  /**
   * Classifies a failure of an isolate operation (compile, link, evaluate, apply). The host's codes are
   * decided from the host's state, never from message text alone: a link error quotes an import name,
   * and a program can throw any message it likes.
   */
  #onIsolateFailure(error: unknown, sliceEndsAt = Number.POSITIVE_INFINITY): void {
    if (this.#finished) return;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof ModuleResolutionError)
      return this.#fail({ name: 'ModuleResolutionError', code: error.code, message: error.message });
    if (this.#isolate.isDisposed) {
      // Only isolated-vm disposes an isolate during a run (this code disposes it after finishing).
      if (/memory limit/i.test(message)) return this.#fail(memoryLimitError(this.#request.limits.memoryLimitMb));
      return this.#fail({ name: 'SandboxError', code: 'SANDBOX_ERROR', message: 'the isolate stopped unexpectedly' });
    }
    // A slice's timeout is what the run had left when it began: a real one leaves (almost) nothing, or
    // came when the slice's wall clock was up (a program throwing that message earlier gets no TIMEOUT).
    if (message === 'Script execution timed out.' && (this.#ledger.timeLeft() <= 25 || performance.now() >= sliceEndsAt - 5))
      return this.#timeout();
    const name = error instanceof Error ? error.name : 'Error';
    const stack = error instanceof Error && typeof error.stack === 'string' ? programFrames(error.stack) : undefined;
    this.#fail({
      name,
      code: name === 'SyntaxError' ? 'SYNTAX_ERROR' : 'RUNTIME_ERROR',
      message,
      ...(stack === undefined ? {} : { stack }),
    });
  }

  // ------------------------------------------------------------------ stalls

  // One check per settled operation (not coalesced): the pending immediate also keeps the event
  // loop from sleeping between calls, which measurably lowers per-call latency.
  #scheduleStallCheck(): void {
    setImmediate(() => this.#checkStalled());
  }

  #isStalled(): boolean {
    return (
      !this.#finished &&
      this.#programStarted &&
      this.#pendingOperations === 0 &&
      this.#ledger.unansweredCalls === 0 &&
      this.#outbox.length === 0 &&
      this.#timers.size === 0
    );
  }

  #checkStalled(): void {
    if (!this.#isStalled()) return;
    // Look again a little later: a call the isolate just sent may still be on its way to this thread.
    setTimeout(() => {
      if (!this.#isStalled()) return;
      this.#fail({
        name: 'SandboxDeadlockError',
        code: 'DEADLOCK',
        message: 'the program is waiting for a promise that can never settle: no capability call is in flight and no timer is pending',
      });
    }, 10);
  }

  #track<T>(operation: Promise<T>): Promise<T> {
    this.#pendingOperations++;
    const settle = (): void => {
      this.#pendingOperations--;
      if (this.#pendingOperations > 0) return;
      // After the outcome, which reaches the host a turn later on isolate threads.
      if (this.#finished) this.#toHost(this.#resolveReleased);
      else this.#scheduleStallCheck();
    };
    operation.then(settle, settle);
    return operation;
  }

  // ------------------------------------------------------------------ to the isolate

  #flush(): void {
    const batch = this.#outbox;
    this.#outbox = [];
    if (this.#finished || batch.length === 0) return;
    const json = `[${batch.join(',')}]`;
    if (this.#waiter !== undefined) return this.#releaseWaiter(json);
    if (!this.#onCaller) {
      this.#delivering = true;
      const slice = this.#slice();
      this.#track(this.#ready.deliver.apply(undefined, [json], { timeout: slice.timeout })).then(
        () => this.#delivered(),
        (error: unknown) => {
          this.#delivering = false;
          this.#onIsolateFailure(error, slice.endsAt);
        },
      );
      return;
    }
    // The program's continuations run now, bounded by the time the run has left (unlike an
    // asynchronous apply, a synchronous one's timeout also covers the microtasks it starts).
    const slice = this.#slice();
    try {
      this.#ready.deliver.applySync(undefined, [json], { timeout: slice.timeout });
    } catch (error) {
      this.#onIsolateFailure(error, slice.endsAt);
    }
    this.#scheduleStallCheck();
  }

  /** A delivery on isolate threads returned: the replies that came meanwhile go in together. */
  #delivered(): void {
    this.#delivering = false;
    if (this.#outbox.length > 0) this.#flush();
  }

  /** The isolate waits in its delivery for replies (on isolate threads): the ones ready go at once, else the next ones, for a moment. */
  #awaitReplies(): Promise<string> {
    if (this.#finished || !this.#mayWaitInDelivery()) return Promise.resolve('');
    if (this.#outbox.length > 0) {
      const batch = this.#outbox;
      this.#outbox = [];
      return Promise.resolve(`[${batch.join(',')}]`);
    }
    this.#releaseWaiter();
    return new Promise((resolve) => {
      this.#waiter = resolve;
      this.#waiterTimeout = setTimeout(() => this.#releaseWaiter(), REPLY_WAIT_MS);
    });
  }

  /**
   * Whether the isolate may wait for replies inside its delivery. isolated-vm counts a delivery's limit
   * on the wall clock, waits included: that is the run's own limit only while the wall clock binds. Held
   * (a person deciding an approval) the wall clock stops, and after a hold the CPU budget may bind first:
   * waiting inside would spend the program's CPU limit on waits. Then each delivery ends its task.
   */
  #mayWaitInDelivery(): boolean {
    const ledger = this.#ledger;
    return !ledger.held && ledger.wallTimeLeft() <= ledger.limits.timeoutMs - ledger.cpuUsedMs();
  }

  #releaseWaiter(batch = ''): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    clearTimeout(this.#waiterTimeout);
    waiter(batch);
  }

  #reply(id: number, ok: boolean, json: string): void {
    if (this.#finished || !this.#ledger.answerCall(id, ok, json)) return;
    // Replies settled by the same microtask run go in together, without waiting for another turn of the
    // event loop; on isolate threads, while a delivery is in flight, they wait for its end (#delivered)
    // or go to the isolate waiting inside it.
    if (this.#outbox.length === 0 && (!this.#delivering || this.#waiter !== undefined)) queueMicrotask(() => this.#flush());
    // `json` is JSON text already, so the batch is valid JSON without encoding it twice.
    this.#outbox.push(`[${id},${ok},${json}]`);
  }

  // A due timer enters the isolate on its own (as in Node, the program's microtasks run between two
  // timers); an interval is armed again only after its callback ran, with the delay the isolate says.
  #wakeTimer(id: number): void {
    if (this.#finished) return;
    // An isolate waiting for replies lets its task end, so that the timer's entry (queued behind it) runs.
    this.#releaseWaiter();
    const { wake } = this.#ready;
    const slice = this.#slice();
    if (!this.#onCaller) {
      this.#track(wake.apply(undefined, [id], { timeout: slice.timeout })).then(
        (next) => this.#timers.rearm(id, next),
        (error: unknown) => {
          this.#timers.rearm(id, -1);
          this.#onIsolateFailure(error, slice.endsAt);
        },
      );
      return;
    }
    let next = -1;
    try {
      next = wake.applySync(undefined, [id], { timeout: slice.timeout });
    } catch (error) {
      this.#onIsolateFailure(error, slice.endsAt);
    }
    this.#timers.rearm(id, next);
    this.#scheduleStallCheck();
  }

  // ------------------------------------------------------------------ from the isolate

  #applyTimerRequests(): void {
    const requests = this.#timerRequests;
    this.#timerRequests = [];
    for (const [start, id, delayMs, repeat] of requests) {
      if (this.#finished) return;
      if (start) this.#timers.set(id, delayMs, repeat);
      else this.#timers.clear(id);
    }
  }

  #onTimer(start: boolean, id: number, delayMs: number, repeat: boolean): void {
    this.#port.checkIn?.();
    if (this.#finished || typeof id !== 'number') return;
    if (this.#timerRequests.length === 0) void Promise.resolve().then(() => this.#applyTimerRequests());
    this.#timerRequests.push([start === true, id, Number(delayMs), repeat === true]);
  }

  /**
   * Called by the isolate, which refuses calls past maxCalls and maxArgumentBytes itself (in characters).
   * The ledger refuses the rest here, for this call only: a name longer than a frame's header takes
   * (the host kills a worker that sends one, and every run in it), arguments over the limit in UTF-8
   * bytes (they never reach the pipe), and calls past the argument characters a run may have
   * unanswered (a thousand 1 MiB calls in one slice would otherwise queue a GiB of frames in the
   * worker, outside the isolate's memory limit).
   */
  #send(id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode): void {
    this.#port.checkIn?.();
    if (this.#finished || typeof id !== 'number') return;
    const [name, func, text] = [String(capability), String(fn), String(argsJson)];
    const admission = this.#ledger.admitCall(id, name, func, text);
    if (admission.kind === 'admitted') this.#port.call(id, name, func, text, resultMode === 'full' ? 'full' : 'value');
    else if (admission.kind === 'refused') this.#reply(id, false, JSON.stringify(admission.error));
  }

  #writeLog(level: string, message: string): boolean {
    this.#port.checkIn?.();
    if (this.#finished) return false;
    const known = knownLogLevel(String(level));
    const text = String(message);
    if (!this.#ledger.takeLog(known, text)) {
      this.#fail(this.#ledger.outputLimit('console output'), false, { stopNow: true });
      return false;
    }
    this.#port.log(known, text);
    return true;
  }

  #complete(ok: boolean, json: string): void {
    if (this.#finished) return;
    const text = String(json);
    if (!ok) return this.#fail(this.#ledger.endWithError(this.#ledger.readProgramError(text)));
    const overLimit = this.#ledger.resultOverLimit(text);
    if (overLimit !== undefined) return this.#fail(overLimit);
    this.#finish({ success: true, resultJson: text });
  }

  // ------------------------------------------------------------------ starting

  #resolveModule(specifier: string, referrer: ivm.Module): ivm.Module {
    const resolved = resolveCapabilityModule(this.#request.outDir, specifier, this.#modulePaths.get(referrer));
    let module = this.#modules.get(resolved.path);
    if (module === undefined) {
      module = this.#isolate.compileModuleSync(resolved.source, { filename: specifier.startsWith('@') ? specifier : resolved.path });
      this.#modulePaths.set(module, resolved.path);
      this.#modules.set(resolved.path, module);
    }
    return module;
  }

  /** The settings the bootstrap's run() takes; the templates are the host's own messages for the calls it refuses itself. */
  #runSettings(): ivm.Copy<RunSettings> {
    const settings: RunSettings = {
      ...this.#ledger.guestCallLimits(),
      callSites: false,
      maxJsonDepth: 0,
    };
    return new (loadIsolatedVm().ExternalCopy)(settings).copyInto();
  }

  // Linking runs no code of the program (its body is the wrapped main), so it is done
  // synchronously: each asynchronous isolate operation costs a thread hop.
  async #start(): Promise<void> {
    const ready = this.#ready;
    ready.bind({
      send: (id, capability, fn, argsJson, resultMode) => this.#send(id, capability, fn, argsJson, resultMode),
      writeLog: (level, message) => this.#writeLog(level, message),
      complete: (ok, json) => this.#complete(ok, json),
      timer: (start, id, delayMs, repeat) => this.#onTimer(start, id, delayMs, repeat),
      awaitReplies: () => this.#awaitReplies(),
    });
    const program = this.#isolate.compileModuleSync(this.#request.js, { filename: PROGRAM_FILENAME });
    program.instantiateSync(ready.context, (specifier, referrer) => this.#resolveModule(specifier, referrer));
    let slice = this.#slice();
    this.#startSliceEndsAt = slice.endsAt;
    program.evaluateSync({ timeout: slice.timeout });
    const main = program.namespace.getSync('default', { reference: true });
    if (this.#finished) return;
    this.#programStarted = true;
    const settings = this.#runSettings();
    this.#ledger.programStarted();
    slice = this.#slice();
    this.#startSliceEndsAt = slice.endsAt;
    if (!this.#onCaller) {
      await this.#track(ready.run.apply(undefined, [main.derefInto(), settings], { timeout: slice.timeout }));
      return;
    }
    ready.run.applySync(undefined, [main.derefInto(), settings], { timeout: slice.timeout, result: { reference: true } }).release();
    this.#scheduleStallCheck();
  }
}

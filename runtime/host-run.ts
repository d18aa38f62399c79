/**
 * One run on the host side of a sandbox worker's pipe, from the 'run' frame to the worker's report that
 * the run's instance stopped. The host trusts nothing the worker says about the run: it answers the
 * program's calls through its own call gate, counts the output again, limits the error codes to those
 * a worker may decide or the host sent, and keeps its own deadline (the worker's plus a margin). A run
 * the host ended (its deadline, a cancel, a limit it counted) must be reported stopped within a grace,
 * or its worker is killed. Its clock, output count and error codes are a {@link RunLedger}, the same
 * type the engine in the worker keeps its own in; its calls go through the host's call gate. Which worker holds a run is the pool's business (worker-pool/), not this.
 */
import { setMaxListeners } from 'node:events';
import type { CallContext, CapabilityCallHandler } from '../core/protocol.js';
import type { LogLevel, RunError, RunLog, RunResult } from '../core/run-result.js';
import type { EngineRunRequest } from './engine.js';
import { createCallGate, type CallGate } from './host/call-gate.js';
import type { ExecuteOptions } from './isolate-executor.js';
import { RunLedger } from './run-ledger.js';
import type { HostToWorkerHeader, WorkerToHostHeader } from './worker-protocol.js';

/** What a run needs of the worker process that holds it. */
export interface RunWorker {
  readonly pid: number;
  send(header: HostToWorkerHeader, body?: string): void;
  /**
   * Whether one of the run's waiting calls may start now: false while the worker has too many replies
   * unread (a program computing, a worker that never reads); the worker resumes the calls once they went out.
   */
  mayStartCall(): boolean;
  /** The worker broke the contract: it is killed and every run in it fails, naming what it did. */
  violation(what: string): void;
  /** Whether a run of the worker other than `run` is still going (its program may hold the worker's thread). */
  hasOtherRunGoing(run: HostRun): boolean;
  /** Kills the worker; its runs fail once it exited. */
  kill(): void;
}

/** A frame of the worker about one run (the pool handles 'ready' and 'released'). */
export type RunFrame = Extract<WorkerToHostHeader, { t: 'call' | 'log' | 'result' }>;

export interface HostRunInit {
  /** The run's id on the pipe: the pool's own, unique in it (the caller's run id may repeat, or be long). */
  wireId: string;
  request: EngineRunRequest;
  onCall: CapabilityCallHandler;
  options: ExecuteOptions;
  worker: RunWorker;
  /** How long the run's instance may take to stop after the host ended the run before its worker is killed. */
  graceMs: number;
}

/** How long after a run's deadline or cancel the host waits for its worker's own report. */
export const REPORT_MARGIN_MS = 50;

export class HostRun {
  readonly wireId: string;
  readonly #request: EngineRunRequest;
  readonly #worker: RunWorker;
  readonly #graceMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #onLog: ((log: RunLog) => void) | undefined;
  readonly #gate: CallGate;
  /** The host's own clock (the engine's deadline plus a margin: its backstop), output count and error codes. */
  readonly #ledger: RunLedger;
  readonly #logs: RunLog[] = [];
  /** Aborted when the run ends: calls still going on the host see it. */
  readonly #callController = new AbortController();
  #nextHoldId = 0;
  #settled = false;
  /** Its report is past the grace (the worker may be stuck). */
  #overdue = false;
  /**
   * It ended by its deadline or by the host (a timeout, a cancel, a limit the host counted) and its
   * instance has not reported stopping: the program may still hold the worker's thread. Runs that ended
   * normally do not block their worker.
   */
  #stopping = false;
  /** No longer in its worker (it reported the run stopped, or it exited). */
  #detached = false;
  #cancelTimer: NodeJS.Timeout | undefined;
  /** Waiting for the worker to report the instance stopped; the worker is killed when this expires. */
  #releaseTimer: NodeJS.Timeout | undefined;
  #resolve!: (result: RunResult) => void;
  #reject!: (error: unknown) => void;
  readonly #result = new Promise<RunResult>((resolve, reject) => {
    this.#resolve = resolve;
    this.#reject = reject;
  });
  readonly #onAbort = (): void => this.#cancel();

  constructor(init: HostRunInit) {
    this.wireId = init.wireId;
    this.#request = init.request;
    this.#worker = init.worker;
    this.#graceMs = init.graceMs;
    this.#signal = init.options.signal;
    this.#onLog = init.options.onLog;
    const { limits } = init.request;
    setMaxListeners(0, this.#callController.signal);
    this.#ledger = new RunLedger(limits, {
      deadlineMarginMs: REPORT_MARGIN_MS,
      onDeadline: () => this.#abort(this.#ledger.timeoutError(), true),
    });
    // Whether the program started is the worker's to know: its bootstrap's refusals count from the start.
    this.#ledger.programStarted();
    const context: CallContext = {
      runId: init.request.runId,
      signal: this.#callController.signal,
      holdDeadline: () => this.#holdDeadline(),
    };
    this.#gate = createCallGate({
      limits,
      onCall: init.onCall,
      context,
      mayStart: () => this.#worker.mayStartCall(),
      reply: (id, ok, json) => this.#reply(id, ok, json),
    });
  }

  /** The run ended (its result is given, or about to be); its instance may still be stopping. */
  get settled(): boolean {
    return this.#settled;
  }

  /** The worker takes no new run while this run may hold its thread (see #stopping and #overdue). */
  get blocksWorker(): boolean {
    return this.#overdue || this.#stopping;
  }

  /** Sends the program to the worker; resolves with the run's result, rejects only with a fault of the host's own (its onLog threw). */
  start(): Promise<RunResult> {
    this.#signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.#worker.send({ t: 'run', runId: this.wireId, outDir: this.#request.outDir, limits: this.#request.limits }, this.#request.js);
    if (this.#signal?.aborted === true) this.#cancel();
    return this.#result;
  }

  /** A frame of the worker about this run; `bodyBytes`: the body's size as it crossed the pipe. */
  receive(message: RunFrame, body: string, bodyBytes: number): void {
    switch (message.t) {
      case 'call':
        if (!this.#settled) this.#gate.submit(message.id, message.capability, message.fn, body, message.mode, bodyBytes);
        return;
      case 'log':
        return this.#receiveLog(message.level, body);
      case 'result':
        return this.#receiveResult(message, body, bodyBytes);
    }
  }

  /** The worker reports the run's instance stopped (the pool took the run off the worker first). */
  released(): void {
    this.#detach();
    // A worker that reports a run released before its result: the run failed in the worker.
    if (!this.#settled)
      this.#settle(
        this.#failed({ name: 'SandboxError', code: 'SANDBOX_ERROR', message: 'the sandbox worker stopped the run without a result' }),
      );
  }

  /** The worker failed (it died, or broke the contract): the run ends with `error`. */
  failWithWorker(error: RunError): void {
    this.#settle(this.#failed(error));
  }

  /** The worker exited: nothing of the run is waited for any more. */
  detach(): void {
    this.#detach();
  }

  /** The worker's unread replies went out: calls held back start. */
  resumeCalls(): void {
    this.#gate.resume();
  }

  #reply(id: number, ok: boolean, json: string): void {
    if (this.#settled) return;
    this.#ledger.noteAnswer(ok, json);
    this.#worker.send({ t: 'reply', runId: this.wireId, id, ok }, json);
  }

  #receiveLog(level: LogLevel, message: string): void {
    if (this.#settled) return;
    if (!this.#ledger.takeLog(level, message)) return this.#abort(this.#ledger.outputLimit('console output'));
    const log = { level, message };
    this.#logs.push(log);
    try {
      this.#onLog?.(log);
    } catch (error) {
      // The host's own handler failed: thrown out of the frame reader, it ended the host process.
      // The run stops and its caller gets the error, as when a line held for the check is handed over.
      if (this.#end()) this.#reject(error);
      this.#stopInWorker();
    }
  }

  #receiveResult(message: Extract<RunFrame, { t: 'result' }>, body: string, bodyBytes: number): void {
    if (this.#settled) return;
    if (!message.ok) {
      const error = this.#ledger.readWorkerError(body);
      // Timed out only with the TIMEOUT code, which only the worker's runner decides (a program cannot
      // end with it: WORKER_DECIDED_CODES). A compromised worker could say it early; it can end its own
      // runs any way it likes anyway, and the host's backstop still bounds every run's time.
      const timedOut = message.timedOut && error.code === 'TIMEOUT';
      if (timedOut || error.code === 'CANCELLED') this.#stopping = true;
      this.#settle(this.#failed(error, timedOut));
    } else if (!this.#ledger.takeBytes(bodyBytes)) {
      this.#settle(this.#failed(this.#ledger.outputLimit(`the result (${bodyBytes} bytes of JSON)`)));
    } else {
      let value: unknown;
      try {
        value = JSON.parse(body);
      } catch {
        return this.#worker.violation('a result that is not JSON');
      }
      this.#settle({
        success: true,
        result: value,
        logs: this.#logs,
        timedOut: false,
        calls: this.#gate.calls,
        durationMs: this.#ledger.elapsedMs(),
      });
    }
    this.#killWorkerUnlessReleased();
  }

  #cancel(): void {
    this.#worker.send({ t: 'cancel', runId: this.wireId });
    // The worker runs programs on its main thread, so while one computes it reads nothing: a run whose
    // worker does not report shortly after the cancel is ended here.
    this.#cancelTimer ??= setTimeout(
      () =>
        this.#abort({ name: 'SandboxCancelledError', code: 'CANCELLED', message: 'the run was cancelled while the program was computing' }),
      REPORT_MARGIN_MS,
    );
  }

  /**
   * Holding the deadline (a person deciding an approval) stops both wall clocks: the worker's and the
   * host's backstop. The worker still counts the program's CPU time.
   */
  #holdDeadline(): () => void {
    if (this.#settled) return () => undefined;
    const holdId = ++this.#nextHoldId;
    const release = this.#ledger.hold();
    this.#worker.send({ t: 'hold', runId: this.wireId, holdId });
    let released = false;
    return () => {
      if (released || this.#settled) return;
      released = true;
      this.#worker.send({ t: 'release', runId: this.wireId, holdId });
      release();
    };
  }

  /** The host ended the run (its own output count, a cancel, the backstop): the worker must stop it. */
  #abort(error: RunError, timedOut = false): void {
    if (this.#settled) return;
    this.#settle(this.#failed(error, timedOut));
    this.#stopInWorker();
  }

  /** The worker is told to stop the run, and killed if it does not report it stopped. */
  #stopInWorker(): void {
    this.#stopping = true;
    this.#worker.send({ t: 'cancel', runId: this.wireId });
    this.#killWorkerUnlessReleased();
  }

  /**
   * Kills the worker unless the run's instance reports stopping within the grace. The kill waits for
   * the I/O phase after the timer: when this thread was busy (a first type-check), a 'released' already
   * sent must be read before the timer, which fires first, counts as expired.
   */
  #killWorkerUnlessReleased(): void {
    if (this.#releaseTimer !== undefined) return;
    const arm = (): void => {
      this.#releaseTimer = setTimeout(
        () =>
          setImmediate(() => {
            if (this.#detached) return;
            // The worker runs its programs on one thread: while another of its runs is still going, the
            // thread may be computing that run's slice (bounded by that run's own time) and read nothing,
            // so this run's report cannot come yet. Killing the worker then failed every run in it; it is
            // killed once none of its other runs is going (the host ends each at its own deadline).
            // Meanwhile it takes no new run: were it stuck, each new run would freeze there and put the
            // kill off again.
            this.#overdue = true;
            if (this.#worker.hasOtherRunGoing(this)) return arm();
            this.#worker.kill();
          }),
        this.#graceMs,
      );
    };
    arm();
  }

  #detach(): void {
    this.#detached = true;
    clearTimeout(this.#releaseTimer);
  }

  #settle(result: RunResult): void {
    if (this.#end()) this.#resolve(result);
  }

  /** Marks the run ended and stops what waits on it; false when it had ended already. */
  #end(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#gate.close();
    this.#ledger.close();
    clearTimeout(this.#cancelTimer);
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#callController.abort(new Error(`run ${this.#request.runId} ended`));
    return true;
  }

  #failed(error: RunError, timedOut = false): RunResult {
    return {
      success: false,
      result: null,
      logs: this.#logs,
      error,
      timedOut,
      calls: this.#gate.calls,
      durationMs: this.#ledger.elapsedMs(),
    };
  }
}

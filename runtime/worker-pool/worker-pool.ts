/**
 * A pool of sandbox workers — child processes, or threads of the host's process (`transport`) — each
 * running up to `runsPerWorker` programs at once: one is started with the pool, the others once runs
 * overlap (or ready() is asked).
 * This file is placement: which worker takes a run, and starting, replacing and killing workers. A run
 * on the host side of the pipe is a {@link HostRun} (../host-run.ts); a worker process is a
 * {@link PoolWorker} (pool-worker.ts) over a transport (worker-transport.ts). A worker that breaks the contract, dies, or whose instance does
 * not stop within a grace period after its run ended is killed and replaced; only its own runs fail.
 */
import { SandboxError } from '../../core/errors.js';
import type { CapabilityCallHandler } from '../../core/protocol.js';
import type { RunResult } from '../../core/run-result.js';
import type { EngineChoice, EngineName, EngineRunRequest } from '../engine.js';
import { HostRun } from '../host-run.js';
import { isEngineName } from '../engines.js';
import type { ExecuteOptions, IsolateExecutor } from '../isolate-executor.js';
import type { WorkerToHostHeader } from '../worker-protocol.js';
import { PoolWorker, type PoolWorkerEvents } from './pool-worker.js';
import { resolveWorkerEntry, type WorkerEntry } from './worker-entry.js';
import type { WorkerTransportKind } from './worker-transport.js';

export interface WorkerPoolOptions {
  workers: number;
  /** Programs one worker runs at once (default 8). */
  runsPerWorker?: number;
  /** How long an isolate may take to stop after its run ended before its worker is killed. */
  graceMs?: number;
  /** The worker program (tests start hostile ones); default: sandbox-worker beside this file. */
  entry?: { file: string; args?: string[] };
  /** The engine the default worker loads (`auto`: resolved in the worker; default). */
  engine?: EngineChoice;
  /** Where workers run: child processes (`process`, default) or threads of this process (`thread`). */
  transport?: WorkerTransportKind;
}

export interface WorkerPoolExecutor extends IsolateExecutor {
  /** Ids of the live workers (for diagnostics and tests): process ids, or thread ids on threads. */
  pids(): number[];
  /** Starts every one of the `workers` workers (the pool starts one, and the rest once runs overlap); resolves once they are ready. */
  ready(): Promise<void>;
  /** The engine the workers loaded and why, once one is ready (as the worker said it). */
  engine(): { name: EngineName; reason: string } | undefined;
}

const MAX_START_FAILURES = 3;
/** Frame bytes beyond the run's own limits (headers, JSON escapes). */
const FRAME_SLACK_BYTES = 64 * 1024;

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

export function createWorkerPoolExecutor(options: WorkerPoolOptions): WorkerPoolExecutor {
  const pool = new WorkerPool(options);
  // Methods bound here: callers hand them on alone (createSandbox's `pids: pool.pids`).
  return {
    execute: (request, onCall, executeOptions) => pool.execute(request, onCall, executeOptions),
    pids: () => pool.pids(),
    engine: () => pool.engine(),
    ready: () => pool.ready(),
    close: () => pool.close(),
  };
}

class WorkerPool {
  readonly #size: number;
  /**
   * Workers kept live: one until runs overlap (a second run placed beside one in progress) or ready() is
   * asked, then `#size`. A process that runs one program at a time never pays for the others (each
   * sandbox worker is a Node process of ~55 MB with its engine loaded).
   */
  #target: number;
  readonly #runsPerWorker: number;
  readonly #graceMs: number;
  readonly #entry: WorkerEntry;
  readonly #transport: WorkerTransportKind;
  /** Live workers, and killed ones until their exit arrives. */
  readonly #workers = new Set<PoolWorker>();
  /** Callers waiting for a free slot. */
  readonly #waiting: Waiter<PoolWorker>[] = [];
  readonly #readyWaiters: Waiter<void>[] = [];
  /** Largest frame a worker may send: a result or log is bounded by maxOutputBytes, arguments by maxArgumentBytes. */
  #maxFrameBytes = 2 * 1024 * 1024 + FRAME_SLACK_BYTES;
  #startFailures = 0;
  #startError: SandboxError | undefined;
  #closed = false;
  /** Numbers the runs' ids on the pipe (see HostRun.wireId). */
  #runSerial = 0;
  #loadedEngine: { name: EngineName; reason: string } | undefined;
  readonly #events: PoolWorkerEvents = {
    ready: (worker, message) => this.#onWorkerReady(worker, message),
    runReleased: (worker) => this.#onRunReleased(worker),
    exited: (worker, code, signal) => this.#onWorkerExit(worker, code, signal),
  };

  constructor(options: WorkerPoolOptions) {
    this.#size = options.workers;
    this.#runsPerWorker = options.runsPerWorker ?? 8;
    this.#graceMs = options.graceMs ?? 250;
    this.#entry = resolveWorkerEntry(options.entry, options.engine ?? 'auto');
    this.#transport = options.transport ?? 'process';
    this.#target = Math.min(1, this.#size);
    for (let index = 0; index < this.#target; index++) this.#start();
  }

  /** Every worker of the pool is started (kept from then on). */
  #grow(): void {
    if (this.#closed || this.#target >= this.#size) return;
    this.#target = this.#size;
    for (let live = this.#liveCount(); live < this.#target; live++) this.#start();
  }

  async execute(request: EngineRunRequest, onCall: CapabilityCallHandler, options: ExecuteOptions = {}): Promise<RunResult> {
    const queued = performance.now();
    const worker = await this.#take(options.signal);
    if (this.#closed) throw closedError();
    if (worker === undefined) {
      this.#offerSlots();
      return {
        success: false,
        result: null,
        logs: [],
        error: {
          name: 'SandboxCancelledError',
          code: 'CANCELLED',
          message: 'the run was cancelled while it waited for a free sandbox worker; it did not start',
        },
        timedOut: false,
        calls: 0,
        durationMs: performance.now() - queued,
      };
    }
    const { limits } = request;
    this.#maxFrameBytes = Math.max(
      this.#maxFrameBytes,
      limits.maxOutputBytes + FRAME_SLACK_BYTES,
      limits.maxArgumentBytes + FRAME_SLACK_BYTES,
    );
    const run = new HostRun({ wireId: `run-${++this.#runSerial}`, request, onCall, options, worker, graceMs: this.#graceMs });
    worker.runs.set(run.wireId, run);
    worker.updateRef();
    return run.start();
  }

  /** A killed worker stays in the set until its exit arrives; it is no longer a live worker. */
  pids(): number[] {
    return [...this.#workers].filter((worker) => !worker.killed).map((worker) => worker.pid);
  }

  engine(): { name: EngineName; reason: string } | undefined {
    return this.#loadedEngine;
  }

  ready(): Promise<void> {
    if (this.#startError !== undefined) return Promise.reject(this.#startError);
    this.#grow();
    return this.#readyCount() >= this.#size
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => this.#readyWaiters.push({ resolve, reject }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const error = closedError();
    this.#waiting.splice(0).forEach((waiter) => waiter.reject(error));
    for (const worker of this.#workers) {
      // Said now, not at the worker's exit: a thread asked to stop reports its runs cancelled first.
      worker.failRuns({ name: 'SandboxError', code: 'SANDBOX_CLOSED', message: CLOSED_WHILE_RUNNING });
      worker.kill();
    }
    await Promise.all([...this.#workers].map((worker) => worker.exit));
  }

  // ------------------------------------------------------------------ what workers tell the pool

  #onWorkerReady(worker: PoolWorker, message: Extract<WorkerToHostHeader, { t: 'ready' }>): void {
    if (this.#closed) return;
    worker.ready = true;
    if (isEngineName(message.engine)) this.#loadedEngine ??= { name: message.engine, reason: message.reason ?? '' };
    this.#startFailures = 0;
    worker.updateRef();
    this.#offerSlots();
    this.#checkReady();
  }

  #onRunReleased(worker: PoolWorker): void {
    this.#offerSlots();
    this.#trimExtra(worker);
    this.#checkReady();
  }

  #onWorkerExit(worker: PoolWorker, code: number | null, signal: NodeJS.Signals | null): void {
    this.#workers.delete(worker);
    const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
    const tail = worker.stderr.trim().split('\n').slice(-3).join(' | ');
    worker.endRuns({
      name: 'SandboxError',
      code: this.#closed ? 'SANDBOX_CLOSED' : 'SANDBOX_CRASHED',
      message: this.#closed
        ? CLOSED_WHILE_RUNNING
        : `the sandbox worker (${worker.transport.label}) died during the run (${how})${tail === '' ? '' : `: ${tail}`}; the pool replaced it. If the program uses much memory, make it need less or raise sandbox.memoryLimitMb in the config`,
    });
    if (this.#closed) return;
    if (!worker.ready && ++this.#startFailures >= MAX_START_FAILURES) {
      this.#startError = new SandboxError(
        'WORKER_START_FAILED',
        `sandbox workers fail to start (${this.#entry.file}): ${worker.stderr.trim().slice(-500) || `exit ${code ?? signal}`}`,
      );
      this.#waiting.splice(0).forEach((waiter) => waiter.reject(this.#startError));
      // ready() says it too: workers that cannot start (no engine here, a broken install) never will.
      this.#readyWaiters.splice(0).forEach((waiter) => waiter.reject(this.#startError));
      return;
    }
    // A worker started beside a blocked one (#startBesideBlocked) may already have taken its place.
    if (this.#liveCount() < this.#target) this.#start();
    else this.#offerSlots();
  }

  // ------------------------------------------------------------------ placement

  #start(): void {
    this.#workers.add(new PoolWorker(this.#transport, this.#entry, this.#events, () => this.#maxFrameBytes));
  }

  /**
   * A worker with a free slot for the caller, or `undefined` when `signal` aborts first. The slot
   * reserved by #offerSlots() becomes this run; a worker that died between the reservation and now is
   * not used.
   */
  async #take(signal: AbortSignal | undefined): Promise<PoolWorker | undefined> {
    let worker = await this.#acquire(signal);
    while (worker !== undefined) {
      worker.reserved--;
      if (!worker.killed && this.#workers.has(worker)) break;
      worker = this.#closed ? undefined : await this.#acquire(signal);
    }
    return worker;
  }

  /** A worker with a free slot (reserved for the caller), or `undefined` when `signal` aborts first. */
  #acquire(signal: AbortSignal | undefined): Promise<PoolWorker | undefined> {
    if (this.#startError !== undefined) return Promise.reject(this.#startError);
    if (signal?.aborted === true) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.#waiting.indexOf(waiter);
        if (index !== -1) this.#waiting.splice(index, 1);
        resolve(undefined);
      };
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      const waiter: Waiter<PoolWorker> = {
        resolve: (next) => (done(), resolve(next)),
        reject: (error) => (done(), reject(error)),
      };
      this.#waiting.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#offerSlots();
    });
  }

  #offerSlots(): void {
    while (this.#waiting.length > 0) {
      const worker = this.#leastBusy();
      if (worker === undefined) {
        // A run waits while another holds every slot (one run per worker, or a run parked for approval):
        // runs overlap, so the rest of the pool starts — else the waiter would wait for the other run's end.
        if (this.#target < this.#size && [...this.#workers].some((busy) => !busy.killed && busy.load > 0)) this.#grow();
        return this.#startBesideBlocked();
      }
      // Reserved at once, so the next waiter sees this worker as busier.
      worker.reserved++;
      worker.lastUsed = performance.now();
      // Runs overlap (a run that ended while its isolate stops does not count): the rest of the pool starts.
      if (this.#target < this.#size && worker.reserved + [...worker.runs.values()].filter((run) => !run.settled).length > 1) this.#grow();
      (this.#waiting.shift() as Waiter<PoolWorker>).resolve(worker);
    }
  }

  #leastBusy(): PoolWorker | undefined {
    let best: PoolWorker | undefined;
    for (const worker of this.#workers) {
      if (!worker.ready || worker.killed || worker.load >= this.#runsPerWorker || worker.blocked) continue;
      // Ties go to the worker idle longest: the one that just finished a run is still disposing its
      // isolate and preparing the next, the other has its spare ready.
      if (best === undefined || worker.load < best.load || (worker.load === best.load && worker.lastUsed < best.lastUsed)) best = worker;
    }
    return best;
  }

  /**
   * New runs wait while every worker holds a run past its deadline: a worker is started beside them,
   * so that the runs go to a worker whose thread is free. The extra worker is ended once idle again.
   */
  #startBesideBlocked(): void {
    if (this.#closed || this.#waiting.length === 0 || this.#startError !== undefined) return;
    const unblocked = [...this.#workers].filter((worker) => !worker.killed && !worker.blocked).length;
    if (unblocked < this.#target) this.#start();
  }

  #trimExtra(worker: PoolWorker): void {
    if (this.#liveCount() > this.#target && worker.ready && worker.load === 0 && this.#waiting.length === 0) worker.kill();
  }

  #liveCount(): number {
    return [...this.#workers].filter((worker) => !worker.killed).length;
  }

  #readyCount(): number {
    return [...this.#workers].filter((worker) => worker.settled).length;
  }

  #checkReady(): void {
    if (this.#readyCount() >= this.#size) this.#readyWaiters.splice(0).forEach((waiter) => waiter.resolve());
  }
}

const CLOSED_WHILE_RUNNING = 'the sandbox was closed while the program was running';

function closedError(): SandboxError {
  return new SandboxError('SANDBOX_CLOSED', 'this sandbox was closed; create a new one with createSandbox()');
}

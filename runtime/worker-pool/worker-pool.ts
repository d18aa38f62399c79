/**
 * A pool of pre-started sandbox worker processes. Each worker runs one program at a time; the host
 * answers its capability calls. A worker whose isolate does not stop within a grace period after its
 * run ended, or that dies, is killed and replaced; only its own run fails.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SandboxError } from '../../core/errors.js';
import { toWireError, type CallContext, type CapabilityCallHandler } from '../../core/protocol.js';
import type { RunError, RunResult } from '../../core/run-result.js';
import type { IsolateExecutor } from '../isolate-executor.js';
import type { IsolateRunRequest } from '../isolated-vm/run-in-isolate.js';
import type { HostToWorkerMessage, WorkerToHostMessage } from '../worker-protocol.js';

export interface WorkerPoolOptions {
  workers: number;
  /** How long an isolate may take to stop after its run ended before its worker is killed. */
  graceMs?: number;
}

export interface WorkerPoolExecutor extends IsolateExecutor {
  /** Process ids of the live workers (for diagnostics and tests). */
  pids(): number[];
  /** Resolves once `workers` workers are ready. */
  ready(): Promise<void>;
}

interface ActiveRun {
  runId: string;
  onCall: CapabilityCallHandler;
  callContext: CallContext;
  settle(result: RunResult): void;
  settled: boolean;
  /** The caller cancelled the run: calls the worker sends before it reads the cancel are not performed. */
  cancelled: boolean;
  started: number;
}

interface Worker {
  child: ChildProcess;
  pid: number;
  ready: boolean;
  /** Killed and waiting for its exit: it must stay referenced until then. */
  killed?: boolean;
  stderr: string;
  run?: ActiveRun;
  releaseTimer?: NodeJS.Timeout;
}

const MAX_START_FAILURES = 3;
/** How long after a run's deadline or cancel the host waits for its worker's own report. */
const REPORT_MARGIN_MS = 50;

export function createWorkerPoolExecutor(options: WorkerPoolOptions): WorkerPoolExecutor {
  const graceMs = options.graceMs ?? 250;
  const workers = new Set<Worker>();
  const idle: Worker[] = [];
  const waiting: { resolve: (worker: Worker) => void; reject: (error: unknown) => void }[] = [];
  const readyWaiters: (() => void)[] = [];
  let startFailures = 0;
  let startError: SandboxError | undefined;
  let closed = false;

  const entry = workerEntry();

  const makeIdle = (worker: Worker): void => {
    worker.child.channel?.unref();
    const next = waiting.shift();
    if (next !== undefined) next.resolve(worker);
    else idle.push(worker);
    if (idle.length >= options.workers) readyWaiters.splice(0).forEach((resolve) => resolve());
  };

  const send = (worker: Worker, message: HostToWorkerMessage): void => {
    if (worker.child.connected) worker.child.send(message);
  };

  const kill = (worker: Worker): void => {
    // Stay alive until the exit is seen, so the replacement starts (and close() can wait for it).
    worker.killed = true;
    worker.child.ref();
    worker.child.kill('SIGKILL');
  };

  /**
   * Kills `worker` unless its isolate reports stopping within the grace. The kill waits for the I/O
   * phase after the timer: when this thread was busy (a first type-check), the 'released' already
   * sent must be read before the timer, which fires first, counts as expired.
   */
  const killUnlessReleased = (worker: Worker): void => {
    const timer = setTimeout(() => setImmediate(() => {
      if (worker.releaseTimer === timer) kill(worker);
    }), graceMs);
    worker.releaseTimer = timer;
  };

  const spawn = (): void => {
    const child = fork(entry.file, [], { execArgv: entry.execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
    const worker: Worker = { child, pid: child.pid ?? -1, ready: false, stderr: '' };
    workers.add(worker);
    child.stderr?.on('data', (chunk: Buffer) => {
      worker.stderr = (worker.stderr + chunk.toString('utf8')).slice(-2000);
    });
    (child.stderr as Socket | null)?.unref();
    child.on('message', (message: WorkerToHostMessage) => onMessage(worker, message));
    child.on('error', () => kill(worker));
    child.on('exit', (code, signal) => onExit(worker, code, signal));
  };

  const onMessage = (worker: Worker, message: WorkerToHostMessage): void => {
    switch (message.type) {
      case 'ready':
        // A 'ready' that arrives after the worker was killed (e.g. by close()) must not unreference it:
        // the host would then end before the exit it waits for (exit code 13).
        if (worker.killed || closed) return;
        worker.ready = true;
        // An idle worker must not keep the host alive; a starting or busy one does.
        worker.child.unref();
        startFailures = 0;
        makeIdle(worker);
        return;
      case 'call':
        return performCall(worker, message);
      case 'result': {
        const run = worker.run;
        if (run?.runId !== message.runId) return;
        run.settle(message.result);
        // A run ended here (see giveUp) already has its timer.
        if (worker.releaseTimer === undefined) killUnlessReleased(worker);
        return;
      }
      case 'released':
        if (worker.run?.runId !== message.runId) return;
        clearTimeout(worker.releaseTimer);
        worker.releaseTimer = undefined;
        worker.run = undefined;
        if (!closed) makeIdle(worker);
        return;
    }
  };

  const performCall = (worker: Worker, message: Extract<WorkerToHostMessage, { type: 'call' }>): void => {
    const run = worker.run;
    const { id, params } = message.request;
    if (run === undefined || run.settled || run.cancelled || run.runId !== message.runId) return;
    Promise.resolve()
      .then(() => run.onCall(params, run.callContext))
      .then(
        (result: unknown) => ({ jsonrpc: '2.0' as const, id, result: result ?? null }),
        (error: unknown) => ({ jsonrpc: '2.0' as const, id, error: toWireError(error) }),
      )
      .then((response) => {
        if (!run.settled && worker.run === run) send(worker, { type: 'call-response', runId: run.runId, response });
      });
  };

  const onExit = (worker: Worker, code: number | null, signal: NodeJS.Signals | null): void => {
    workers.delete(worker);
    clearTimeout(worker.releaseTimer);
    const index = idle.indexOf(worker);
    if (index !== -1) idle.splice(index, 1);
    const run = worker.run;
    if (run !== undefined && !run.settled) {
      const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
      const tail = worker.stderr.trim().split('\n').slice(-3).join(' | ');
      run.settle(crashResult(run, {
        name: 'SandboxError',
        code: closed ? 'SANDBOX_CLOSED' : 'SANDBOX_CRASHED',
        message: closed
          ? 'the sandbox was closed while the program was running'
          : `the sandbox worker (pid ${worker.pid}) died during the run (${how})${tail === '' ? '' : `: ${tail}`}; the pool replaced it. If the program uses much memory, lower its needs or limits.memoryLimitMb`,
      }));
    }
    if (closed) return;
    if (!worker.ready && ++startFailures >= MAX_START_FAILURES) {
      startError = new SandboxError('WORKER_START_FAILED', `sandbox workers fail to start (${entry.file}): ${worker.stderr.trim().slice(-500) || `exit ${code ?? signal}`}`);
      waiting.splice(0).forEach((waiter) => waiter.reject(startError));
      return;
    }
    spawn();
  };

  /** A free worker, or `undefined` when `signal` aborts first (the waiter leaves the queue). */
  const acquire = (signal: AbortSignal | undefined): Promise<Worker | undefined> => {
    if (startError !== undefined) return Promise.reject(startError);
    if (signal?.aborted === true) return Promise.resolve(undefined);
    const worker = idle.pop();
    if (worker !== undefined) return Promise.resolve(worker);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = waiting.indexOf(waiter);
        if (index !== -1) waiting.splice(index, 1);
        resolve(undefined);
      };
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      const waiter = {
        resolve: (next: Worker) => (done(), resolve(next)),
        reject: (error: unknown) => (done(), reject(error)),
      };
      waiting.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };

  for (let index = 0; index < options.workers; index++) spawn();

  return {
    async execute(request: IsolateRunRequest, onCall, signal) {
      const queued = performance.now();
      const worker = await acquire(signal);
      if (closed) throw new SandboxError('SANDBOX_CLOSED', 'this sandbox was closed; create a new one with createSandbox()');
      if (worker === undefined) {
        return { success: false, result: null, logs: [], error: { name: 'SandboxCancelledError', code: 'CANCELLED', message: 'the run was cancelled while it waited for a free sandbox worker; it did not start' }, timedOut: false, calls: 0, durationMs: performance.now() - queued };
      }
      worker.child.channel?.ref();
      return new Promise<RunResult>((resolve) => {
        const callController = new AbortController();
        setMaxListeners(0, callController.signal);
        // The worker runs the program on its main thread, so while the program computes it reads no
        // message and reports nothing. A run whose worker has not reported shortly after the cancel
        // or the deadline is ended here; the worker is killed unless its isolate stops within the grace.
        const giveUp = (error: RunError, timedOut = false): void => {
          if (run.settled) return;
          run.settle(crashResult(run, error, timedOut));
          clearTimeout(worker.releaseTimer);
          killUnlessReleased(worker);
        };
        let cancelTimer: NodeJS.Timeout | undefined;
        const onAbort = (): void => {
          run.cancelled = true;
          send(worker, { type: 'cancel', runId: request.runId });
          cancelTimer ??= setTimeout(() => giveUp({ name: 'SandboxCancelledError', code: 'CANCELLED', message: 'the run was cancelled while the program was computing' }), REPORT_MARGIN_MS);
        };
        const onHardTimeout = (): void =>
          giveUp({ name: 'SandboxTimeoutError', code: 'TIMEOUT', message: `the program ran longer than its limit of ${request.limits.timeoutMs} ms and was stopped; make it do less per run or raise limits.timeoutMs` }, true);
        let hardDeadline = performance.now() + request.limits.timeoutMs + REPORT_MARGIN_MS;
        let hardTimer = setTimeout(onHardTimeout, hardDeadline - performance.now());
        // Holding the deadline (a person deciding an approval) stops both clocks: the worker's and this backstop.
        let holds = 0;
        let heldSince = 0;
        let nextHoldId = 0;
        const holdDeadline = (): (() => void) => {
          if (run.settled) return () => undefined;
          const holdId = ++nextHoldId;
          if (holds++ === 0) {
            heldSince = performance.now();
            clearTimeout(hardTimer);
          }
          send(worker, { type: 'hold', runId: request.runId, holdId });
          let released = false;
          return () => {
            if (released || run.settled) return;
            released = true;
            send(worker, { type: 'release', runId: request.runId, holdId });
            if (--holds > 0) return;
            hardDeadline += performance.now() - heldSince;
            hardTimer = setTimeout(onHardTimeout, Math.max(1, hardDeadline - performance.now()));
          };
        };
        const run: ActiveRun = {
          runId: request.runId,
          onCall,
          callContext: { runId: request.runId, signal: callController.signal, holdDeadline },
          settled: false,
          cancelled: false,
          started: performance.now(),
          settle(result) {
            if (run.settled) return;
            run.settled = true;
            clearTimeout(hardTimer);
            clearTimeout(cancelTimer);
            signal?.removeEventListener('abort', onAbort);
            callController.abort(new Error(`run ${request.runId} ended`));
            resolve(result);
          },
        };
        worker.run = run;
        signal?.addEventListener('abort', onAbort, { once: true });
        send(worker, { type: 'run', request });
        if (signal?.aborted === true) onAbort();
      });
    },
    pids: () => [...workers].map((worker) => worker.pid),
    ready: () => (idle.length >= options.workers ? Promise.resolve() : new Promise((resolve) => readyWaiters.push(resolve))),
    async close() {
      if (closed) return;
      closed = true;
      const error = new SandboxError('SANDBOX_CLOSED', 'this sandbox was closed; create a new one with createSandbox()');
      waiting.splice(0).forEach((waiter) => waiter.reject(error));
      const exits = [...workers].map((worker) => new Promise<void>((resolve) => {
        if (worker.child.exitCode !== null || worker.child.signalCode !== null) return resolve();
        worker.child.once('exit', () => resolve());
        kill(worker);
      }));
      await Promise.all(exits);
    },
  };
}

function crashResult(run: ActiveRun, error: RunError, timedOut = false): RunResult {
  return { success: false, result: null, logs: [], error, timedOut, calls: 0, durationMs: performance.now() - run.started };
}

/** The worker entry beside this file: `.ts` when running from source (through tsx), `.js` from dist. */
function workerEntry(): { file: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const extension = path.extname(here);
  const file = path.join(path.dirname(here), `sandbox-worker${extension}`);
  const execArgv = ['--no-node-snapshot'];
  if (extension === '.ts') execArgv.push('--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href);
  return { file, execArgv };
}

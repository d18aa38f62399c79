/**
 * A pool of pre-started sandbox worker processes, each running up to `runsPerWorker` programs at once.
 * The host answers their capability calls through a call gate per run and trusts nothing a worker
 * says: every frame is size-capped, every header checked against the contract, outputs counted again
 * and error codes limited to what a worker may decide. A worker that breaks the contract, dies, or
 * whose isolate does not stop within a grace period after its run ended is killed and replaced; only
 * its own runs fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { buildSync as BuildSync } from 'esbuild';
import { SandboxError } from '../../core/errors.js';
import type { CallContext, CapabilityCallHandler } from '../../core/protocol.js';
import type { RunError, RunLog, RunResult } from '../../core/run-result.js';
import { createCallGate, type CallGate } from '../host/call-gate.js';
import { createOutputBudget, logEntryBytes, outputLimitError, type OutputBudget } from '../host/output-budget.js';
import { BOOTSTRAP_REFUSAL_CODES, readReportedError, WORKER_DECIDED_CODES, wireErrorCode } from '../host/run-error-codes.js';
import type { ExecuteOptions, IsolateExecutor } from '../isolate-executor.js';
import type { EngineChoice, EngineName, EngineRunRequest as IsolateRunRequest } from '../engine.js';
import { readWorkerHeader, type HostToWorkerHeader, type WorkerToHostHeader } from '../worker-protocol.js';
import { createFrameReader, createFrameWriter, type FrameWriter } from './frames.js';

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
}

export interface WorkerPoolExecutor extends IsolateExecutor {
  /** Process ids of the live workers (for diagnostics and tests). */
  pids(): number[];
  /** Resolves once `workers` workers are ready. */
  ready(): Promise<void>;
  /** The engine the workers loaded and why, once one is ready (as the worker said it). */
  engine(): { name: EngineName; reason: string } | undefined;
}

interface ActiveRun {
  /** The run's id on the pipe: the pool's own, unique in it (the caller's run id may repeat, or be long). */
  runId: string;
  request: IsolateRunRequest;
  gate: CallGate;
  budget: OutputBudget;
  logs: RunLog[];
  onLog: ((log: RunLog) => void) | undefined;
  /** Codes of the tool errors the host sent this run. */
  sentCodes: Set<string>;
  settle(result: RunResult): void;
  /** Ends the run with a fault of the host's own (its onLog threw): `execute` rejects with it. */
  fault(error: unknown): void;
  settled: boolean;
  /** Waiting for the worker to report the isolate stopped; the worker is killed when this expires. */
  releaseTimer?: NodeJS.Timeout;
  /** Its report is past the grace (the worker may be stuck): the worker takes no new run meanwhile. */
  overdue?: boolean;
  /**
   * It ended by its deadline or by the host (a timeout, a cancel, a limit the host counted) and its
   * isolate has not reported stopping: the program may still hold the worker's thread, so the worker
   * takes no new run until it does (or is killed). Runs that ended normally do not block it.
   */
  stopping?: boolean;
  started: number;
}

interface Worker {
  child: ChildProcess;
  channel: Socket;
  write: FrameWriter;
  pid: number;
  ready: boolean;
  /** Killed and waiting for its exit: it must stay referenced until then. */
  killed?: boolean;
  stderr: string;
  runs: Map<string, ActiveRun>;
  /** Slots promised to callers that have not started their run yet. */
  reserved: number;
  /** When it was last given a run: among equally busy workers, the one idle longest goes first. */
  lastUsed: number;
  /** Calls of its runs wait for its unsent replies to go out (see MAX_UNSENT_BYTES). */
  callsWaitForPipe?: boolean;
}

const MAX_START_FAILURES = 3;
/** How long after a run's deadline or cancel the host waits for its worker's own report. */
const REPORT_MARGIN_MS = 50;
/** Frame bytes beyond the run's own limits (headers, JSON escapes). */
const FRAME_SLACK_BYTES = 64 * 1024;
/**
 * Replies a worker has not read yet past which its runs' waiting calls do not start until the pipe
 * drains: a worker whose program computes (or that never reads) would otherwise have every result of
 * its runs buffered on the host — a thousand 1 MiB results, a GiB per run.
 */
const MAX_UNSENT_BYTES = 8 * 1024 * 1024;

export function createWorkerPoolExecutor(options: WorkerPoolOptions): WorkerPoolExecutor {
  const graceMs = options.graceMs ?? 250;
  const runsPerWorker = options.runsPerWorker ?? 8;
  const workers = new Set<Worker>();
  const waiting: { resolve: (worker: Worker) => void; reject: (error: unknown) => void }[] = [];
  const readyWaiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  /** Largest frame a worker may send: a result or log is bounded by maxOutputBytes, arguments by maxArgumentBytes. */
  let maxFrameBytes = 2 * 1024 * 1024 + FRAME_SLACK_BYTES;
  let startFailures = 0;
  let startError: SandboxError | undefined;
  let closed = false;
  /** Numbers the runs' ids on the pipe (see ActiveRun.runId). */
  let runSerial = 0;

  const entry = options.entry === undefined ? workerEntry(options.engine ?? 'auto') : { file: options.entry.file, execArgv: ['--no-node-snapshot'], args: options.entry.args ?? [] };
  let loadedEngine: { name: EngineName; reason: string } | undefined;
  /** Started, not killed, and not holding a run that ended but whose isolate has not stopped yet. */
  const isSettled = (worker: Worker): boolean => worker.ready && worker.killed !== true && [...worker.runs.values()].every((run) => !run.settled);
  const readyCount = (): number => [...workers].filter(isSettled).length;
  const checkReady = (): void => {
    if (readyCount() >= options.workers) readyWaiters.splice(0).forEach((waiter) => waiter.resolve());
  };
  const load = (worker: Worker): number => worker.runs.size + worker.reserved;
  const isOverdue = (worker: Worker): boolean => [...worker.runs.values()].some((run) => run.overdue === true || run.stopping === true);
  /**
   * New runs wait while every worker holds a run past its deadline: a worker is started beside them,
   * so that the runs go to a worker whose thread is free. The extra worker is ended once idle again.
   */
  const startBesideBlocked = (): void => {
    if (closed || waiting.length === 0 || startError !== undefined) return;
    const unblocked = [...workers].filter((worker) => worker.killed !== true && !isOverdue(worker)).length;
    if (unblocked < options.workers) start();
  };
  const trimExtra = (worker: Worker): void => {
    const live = [...workers].filter((other) => other.killed !== true);
    if (live.length > options.workers && worker.ready && load(worker) === 0 && waiting.length === 0) kill(worker);
  };
  const leastBusy = (): Worker | undefined => {
    let best: Worker | undefined;
    for (const worker of workers) {
      if (!worker.ready || worker.killed || load(worker) >= runsPerWorker || isOverdue(worker)) continue;
      // Ties go to the worker idle longest: the one that just finished a run is still disposing its
      // isolate and preparing the next, the other has its spare ready.
      if (best === undefined || load(worker) < load(best) || (load(worker) === load(best) && worker.lastUsed < best.lastUsed)) best = worker;
    }
    return best;
  };
  const offerSlots = (): void => {
    while (waiting.length > 0) {
      const worker = leastBusy();
      if (worker === undefined) return startBesideBlocked();
      // Reserved at once, so the next waiter sees this worker as busier.
      worker.reserved++;
      worker.lastUsed = performance.now();
      (waiting.shift() as (typeof waiting)[number]).resolve(worker);
    }
  };
  const updateRef = (worker: Worker): void => {
    // An idle worker must not keep the host alive; a starting, busy or killed one does.
    if (worker.ready && load(worker) === 0 && !worker.killed) {
      worker.child.unref();
      worker.channel.unref();
    } else {
      worker.child.ref();
      worker.channel.ref();
    }
  };

  const send = (worker: Worker, header: HostToWorkerHeader, body?: string): void => {
    worker.write(JSON.stringify(header), body);
  };

  const kill = (worker: Worker): void => {
    if (worker.killed) return;
    worker.killed = true;
    updateRef(worker);
    worker.child.kill('SIGKILL');
  };

  /** A worker broke the contract: it is killed, and its runs fail naming what it did. */
  const violation = (worker: Worker, what: string): void => {
    for (const run of worker.runs.values()) {
      run.settle(failedResult(run, { name: 'SandboxError', code: 'SANDBOX_CRASHED', message: `the sandbox worker (pid ${worker.pid}) broke the host protocol (${what}) and was replaced` }));
    }
    kill(worker);
  };

  const start = (): void => {
    // The worker runs hostile code: it gets none of the host's environment (model keys, server secrets).
    const child = spawn(process.execPath, [...entry.execArgv, entry.file, ...entry.args], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env: workerEnvironment() });
    const channel = child.stdio[3] as Socket;
    // Calls held back while its replies piled up start again once they went out: on 'drain', or after a
    // write the socket took whole (which emits no 'drain').
    const resumeCalls = (): void => {
      if (worker.callsWaitForPipe !== true) return;
      worker.callsWaitForPipe = false;
      for (const run of worker.runs.values()) run.gate.resume();
    };
    const worker: Worker = { child, channel, write: createFrameWriter(channel, resumeCalls), pid: child.pid ?? -1, ready: false, stderr: '', runs: new Map(), reserved: 0, lastUsed: 0 };
    workers.add(worker);
    child.stderr?.on('data', (chunk: Buffer) => {
      worker.stderr = (worker.stderr + chunk.toString('utf8')).slice(-2000);
    });
    (child.stderr as Socket | null)?.unref();
    channel.on('data', createFrameReader({
      maxFrameBytes: () => maxFrameBytes,
      onFrame: ({ header, body, bodyBytes }) => {
        const message = readWorkerHeader(header);
        if (message === undefined) return violation(worker, 'a malformed message');
        onMessage(worker, message, body, bodyBytes);
      },
      onViolation: (reason) => violation(worker, reason),
    }));
    channel.on('drain', resumeCalls);
    channel.on('error', () => kill(worker));
    child.on('error', () => kill(worker));
    child.on('exit', (code, signal) => onExit(worker, code, signal));
  };

  /** `bodyBytes`: the body's size as it crossed the pipe, counted by the frame reader. */
  const onMessage = (worker: Worker, message: WorkerToHostHeader, body: string, bodyBytes: number): void => {
    if (message.t === 'ready') {
      // A 'ready' after the worker was killed (e.g. by close()) must not unreference it: the host
      // would then end before the exit it waits for (exit code 13).
      if (worker.killed || closed || worker.ready) return;
      worker.ready = true;
      if (message.engine !== undefined) loadedEngine ??= { name: message.engine, reason: message.reason ?? '' };
      startFailures = 0;
      updateRef(worker);
      offerSlots();
      checkReady();
      return;
    }
    const run = worker.runs.get(message.runId);
    // Messages about runs the host no longer waits for are dropped, not trusted.
    if (run === undefined) return;
    switch (message.t) {
      case 'call':
        if (!run.settled) run.gate.submit(message.id, message.capability, message.fn, body, message.mode, bodyBytes);
        return;
      case 'log': {
        if (run.settled) return;
        if (!run.budget.take(logEntryBytes(message.level, body))) return abortRun(worker, run, outputLimitError('console output', run.request.limits.maxOutputBytes));
        const log = { level: message.level, message: body };
        run.logs.push(log);
        try {
          run.onLog?.(log);
        } catch (error) {
          // The host's own handler failed: thrown out of this frame reader, it ended the host process.
          // The run stops and its caller gets the error, as when a line held for the check is handed over.
          run.fault(error);
          stopInWorker(worker, run);
        }
        return;
      }
      case 'result':
        return onResult(worker, run, message, body, bodyBytes);
      case 'released':
        clearTimeout(run.releaseTimer);
        worker.runs.delete(run.runId);
        // A worker that reports a run released before its result: the run failed in the worker.
        if (!run.settled) run.settle(failedResult(run, { name: 'SandboxError', code: 'SANDBOX_ERROR', message: 'the sandbox worker stopped the run without a result' }));
        updateRef(worker);
        offerSlots();
        trimExtra(worker);
        checkReady();
        return;
    }
  };

  const onResult = (worker: Worker, run: ActiveRun, message: Extract<WorkerToHostHeader, { t: 'result' }>, body: string, bodyBytes: number): void => {
    if (run.settled) return;
    const { limits } = run.request;
    if (!message.ok) {
      const error = readReportedError(body, (code) => WORKER_DECIDED_CODES.has(code) || run.sentCodes.has(code));
      // Timed out only with the TIMEOUT code, which only the worker's runner decides (a program cannot
      // end with it: WORKER_DECIDED_CODES). A compromised worker could say it early; it can end its own
      // runs any way it likes anyway, and the host's backstop still bounds every run's time.
      const timedOut = message.timedOut && error.code === 'TIMEOUT';
      if (timedOut || error.code === 'CANCELLED') run.stopping = true;
      run.settle({ success: false, result: null, logs: run.logs, error, timedOut, calls: run.gate.calls, durationMs: performance.now() - run.started });
    } else if (!run.budget.take(bodyBytes)) {
      run.settle(failedResult(run, outputLimitError(`the result (${bodyBytes} bytes of JSON)`, limits.maxOutputBytes)));
    } else {
      let value: unknown;
      try {
        value = JSON.parse(body);
      } catch {
        return violation(worker, 'a result that is not JSON');
      }
      run.settle({ success: true, result: value, logs: run.logs, timedOut: false, calls: run.gate.calls, durationMs: performance.now() - run.started });
    }
    killUnlessReleased(worker, run);
  };

  /** The host ended a run (its own output count, a cancel, the backstop): the worker must stop it. */
  const abortRun = (worker: Worker, run: ActiveRun, error: RunError, timedOut = false): void => {
    if (run.settled) return;
    run.settle(failedResult(run, error, timedOut));
    stopInWorker(worker, run);
  };

  /** A run the host ended: the worker is told to stop it, and killed if it does not report it stopped. */
  const stopInWorker = (worker: Worker, run: ActiveRun): void => {
    run.stopping = true;
    send(worker, { t: 'cancel', runId: run.runId });
    killUnlessReleased(worker, run);
  };

  /**
   * Kills `worker` unless the run's isolate reports stopping within the grace. The kill waits for the
   * I/O phase after the timer: when this thread was busy (a first type-check), a 'released' already
   * sent must be read before the timer, which fires first, counts as expired.
   */
  const killUnlessReleased = (worker: Worker, run: ActiveRun): void => {
    if (run.releaseTimer !== undefined) return;
    const arm = (): void => {
      run.releaseTimer = setTimeout(() => setImmediate(() => {
        if (worker.runs.get(run.runId) !== run) return;
        // The worker runs its programs on one thread: while another of its runs is still going, the
        // thread may be computing that run's slice (bounded by that run's own time) and read nothing,
        // so this run's report cannot come yet. Killing the worker then failed every run in it; it is
        // killed once none of its other runs is going (the host ends each at its own deadline).
        // Meanwhile it takes no new run: were it stuck, each new run would freeze there and put the
        // kill off again.
        run.overdue = true;
        if ([...worker.runs.values()].some((other) => other !== run && !other.settled)) return arm();
        kill(worker);
      }), graceMs);
    };
    arm();
  };

  const onExit = (worker: Worker, code: number | null, signal: NodeJS.Signals | null): void => {
    workers.delete(worker);
    const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
    const tail = worker.stderr.trim().split('\n').slice(-3).join(' | ');
    for (const run of worker.runs.values()) {
      clearTimeout(run.releaseTimer);
      run.settle(failedResult(run, {
        name: 'SandboxError',
        code: closed ? 'SANDBOX_CLOSED' : 'SANDBOX_CRASHED',
        message: closed
          ? 'the sandbox was closed while the program was running'
          : `the sandbox worker (pid ${worker.pid}) died during the run (${how})${tail === '' ? '' : `: ${tail}`}; the pool replaced it. If the program uses much memory, make it need less or raise sandbox.memoryLimitMb in the config`,
      }));
    }
    worker.runs.clear();
    if (closed) return;
    if (!worker.ready && ++startFailures >= MAX_START_FAILURES) {
      startError = new SandboxError('WORKER_START_FAILED', `sandbox workers fail to start (${entry.file}): ${worker.stderr.trim().slice(-500) || `exit ${code ?? signal}`}`);
      waiting.splice(0).forEach((waiter) => waiter.reject(startError));
      // ready() says it too: workers that cannot start (no engine here, a broken install) never will.
      readyWaiters.splice(0).forEach((waiter) => waiter.reject(startError));
      return;
    }
    // A worker started beside a blocked one (startBesideBlocked) may already have taken its place.
    if ([...workers].filter((other) => other.killed !== true).length < options.workers) start();
    else offerSlots();
  };

  /** A worker with a free slot (reserved for the caller), or `undefined` when `signal` aborts first. */
  const acquire = (signal: AbortSignal | undefined): Promise<Worker | undefined> => {
    if (startError !== undefined) return Promise.reject(startError);
    if (signal?.aborted === true) return Promise.resolve(undefined);
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
      offerSlots();
    });
  };

  for (let index = 0; index < options.workers; index++) start();

  return {
    async execute(request: IsolateRunRequest, onCall: CapabilityCallHandler, executeOptions: ExecuteOptions = {}) {
      const { signal } = executeOptions;
      const queued = performance.now();
      let worker = await acquire(signal);
      // The slot reserved by offerSlots() becomes this run (or is given back). A worker that died
      // between the reservation and now is not used.
      while (worker !== undefined) {
        worker.reserved--;
        if (worker.killed !== true && workers.has(worker)) break;
        worker = closed ? undefined : await acquire(signal);
      }
      if (closed) throw new SandboxError('SANDBOX_CLOSED', 'this sandbox was closed; create a new one with createSandbox()');
      if (worker === undefined) {
        offerSlots();
        return { success: false, result: null, logs: [], error: { name: 'SandboxCancelledError', code: 'CANCELLED', message: 'the run was cancelled while it waited for a free sandbox worker; it did not start' }, timedOut: false, calls: 0, durationMs: performance.now() - queued };
      }
      const { limits } = request;
      maxFrameBytes = Math.max(maxFrameBytes, limits.maxOutputBytes + FRAME_SLACK_BYTES, limits.maxArgumentBytes + FRAME_SLACK_BYTES);
      const wireId = `run-${++runSerial}`;
      return new Promise<RunResult>((resolve, reject) => {
        const callController = new AbortController();
        setMaxListeners(0, callController.signal);
        let cancelTimer: NodeJS.Timeout | undefined;
        const onAbort = (): void => {
          send(worker, { t: 'cancel', runId: wireId });
          // The worker runs programs on its main thread, so while one computes it reads nothing: a run
          // whose worker does not report shortly after the cancel is ended here.
          cancelTimer ??= setTimeout(() => abortRun(worker, run, { name: 'SandboxCancelledError', code: 'CANCELLED', message: 'the run was cancelled while the program was computing' }), REPORT_MARGIN_MS);
        };
        const onHardTimeout = (): void =>
          abortRun(worker, run, { name: 'SandboxTimeoutError', code: 'TIMEOUT', message: `the program ran longer than its limit of ${limits.timeoutMs} ms and was stopped; make it do less per run or raise its limit (sandbox.timeoutMs in the config, --timeout of agent-spaces run)` }, true);
        let hardDeadline = performance.now() + limits.timeoutMs + REPORT_MARGIN_MS;
        let hardTimer = setTimeout(onHardTimeout, hardDeadline - performance.now());
        // Holding the deadline (a person deciding an approval) stops both wall clocks: the worker's and
        // this backstop. The worker still counts the program's CPU time.
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
          send(worker, { t: 'hold', runId: wireId, holdId });
          let released = false;
          return () => {
            if (released || run.settled) return;
            released = true;
            send(worker, { t: 'release', runId: wireId, holdId });
            if (--holds > 0) return;
            hardDeadline += performance.now() - heldSince;
            hardTimer = setTimeout(onHardTimeout, Math.max(1, hardDeadline - performance.now()));
          };
        };
        const context: CallContext = { runId: request.runId, signal: callController.signal, holdDeadline };
        /** Marks the run ended and stops what waits on it; false when it had ended already. */
        const end = (): boolean => {
          if (run.settled) return false;
          run.settled = true;
          run.gate.close();
          clearTimeout(hardTimer);
          clearTimeout(cancelTimer);
          signal?.removeEventListener('abort', onAbort);
          callController.abort(new Error(`run ${request.runId} ended`));
          return true;
        };
        const sentCodes = new Set<string>(BOOTSTRAP_REFUSAL_CODES);
        const run: ActiveRun = {
          runId: wireId,
          request,
          budget: createOutputBudget(limits.maxOutputBytes),
          logs: [],
          onLog: executeOptions.onLog,
          sentCodes,
          gate: createCallGate({
            limits,
            onCall,
            context,
            mayStart: () => {
              if (worker.write.unsentBytes() < MAX_UNSENT_BYTES) return true;
              worker.callsWaitForPipe = true;
              return false;
            },
            reply(id, ok, json) {
              if (run.settled) return;
              const code = ok ? undefined : wireErrorCode(json);
              if (code !== undefined) sentCodes.add(code);
              send(worker, { t: 'reply', runId: wireId, id, ok }, json);
            },
          }),
          settled: false,
          started: performance.now(),
          settle(result) {
            if (end()) resolve(result);
          },
          fault(error) {
            if (end()) reject(error);
          },
        };
        worker.runs.set(wireId, run);
        updateRef(worker);
        signal?.addEventListener('abort', onAbort, { once: true });
        send(worker, { t: 'run', runId: wireId, outDir: request.outDir, limits }, request.js);
        if (signal?.aborted === true) onAbort();
      });
    },
    // A killed worker stays in the set until its exit arrives; it is no longer a live worker.
    pids: () => [...workers].filter((worker) => worker.killed !== true).map((worker) => worker.pid),
    engine: () => loadedEngine,
    ready: () => {
      if (startError !== undefined) return Promise.reject(startError);
      return readyCount() >= options.workers ? Promise.resolve() : new Promise<void>((resolve, reject) => readyWaiters.push({ resolve, reject }));
    },
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

function failedResult(run: ActiveRun, error: RunError, timedOut = false): RunResult {
  return { success: false, result: null, logs: run.logs, error, timedOut, calls: run.gate.calls, durationMs: performance.now() - run.started };
}

/**
 * What a sandbox worker inherits of the host's environment: enough for Node to start and to resolve the
 * modules the host resolves (NODE_PATH: the engine's package may be found through it), no secrets.
 */
function workerEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'TZ', 'LANG', 'LC_ALL', 'TMPDIR', 'NODE_PATH']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * The worker entry beside this file. From dist it is plain JavaScript. From the TypeScript sources
 * (tests, development) it is bundled once per host process into the package's node_modules/.cache, so
 * a worker starts without a TypeScript loader: measured here, 48 MB per idle worker instead of 84.
 */
function workerEntry(engine: EngineChoice): { file: string; execArgv: string[]; args: string[] } {
  const here = fileURLToPath(import.meta.url);
  const extension = path.extname(here);
  const source = path.join(path.dirname(here), `sandbox-worker${extension}`);
  // isolated-vm needs it wherever an isolate is made; QuickJS does not mind it.
  const execArgv = ['--no-node-snapshot'];
  if (extension !== '.ts') return { file: source, execArgv, args: [engine] };
  bundledWorker ??= bundleWorker(source);
  return { file: bundledWorker, execArgv, args: [engine] };
}

let bundledWorker: string | undefined;

function bundleWorker(source: string): string {
  const require = createRequire(import.meta.url);
  const { buildSync } = require('esbuild') as { buildSync: typeof BuildSync };
  // The engines' packages stay outside: isolated-vm is found at run time (load-isolated-vm.ts), and
  // QuickJS reads its .wasm file beside its own module.
  const external = ['isolated-vm', 'isolated-vm-*', 'quickjs-emscripten-core', '@jitl/*'];
  const built = buildSync({ entryPoints: [source], bundle: true, platform: 'node', format: 'esm', target: 'node20', external, write: false, logLevel: 'silent' });
  const code = built.outputFiles[0]?.text ?? '';
  // In the package's own node_modules, so the bundle resolves what it left outside; named by its
  // content, written atomically.
  const cacheDir = path.join(path.dirname(path.dirname(require.resolve('esbuild/package.json'))), '.cache', 'agent-spaces');
  const file = path.join(cacheDir, `sandbox-worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(cacheDir, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, code);
    renameSync(temporary, file);
  }
  return file;
}

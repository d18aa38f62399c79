/**
 * The check workers of this process: worker threads with a heap limit, started when a check needs
 * one and kept warm. A check that runs past its time is stopped by terminating its worker; one that
 * runs out of heap ends its worker by itself. Either way the check answers with one diagnostic that
 * says so, and the next check gets a fresh worker. While a worker is stuck on a pathological program,
 * a second one serves the other checks.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { SandboxError } from '../../core/errors.js';
import type { Diagnostic } from '../../core/run-result.js';
import { killThreadCompilers, removeThreadFolders } from './check-folders.js';
import { TYPE_CHECK_STOPPED, type CheckWorkerToHost, type HostToCheckWorker } from './check-protocol.js';

export interface CheckJob {
  outDir: string;
  code: string;
  timeoutMs: number;
}

export interface CheckPool {
  check(job: CheckJob): Promise<Diagnostic[]>;
  /**
   * Starts a worker now if there is none, so TypeScript loads while the host does other work; the next
   * check waits for it rather than starting another. It does not keep the process alive.
   */
  warm(): void;
}

interface PendingCheck extends CheckJob {
  resolve(diagnostics: Diagnostic[]): void;
  reject(error: Error): void;
}

interface PoolWorker {
  thread: Worker;
  ready: boolean;
  stopped: boolean;
  check: (PendingCheck & { id: number }) | undefined;
  timer: NodeJS.Timeout | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

/**
 * Compiler processes the workers have running (the native checker's `tsc`), by worker: a terminated
 * thread leaves its child processes running, so the host kills them when it stops a worker or exits.
 */
const compilers = new Map<PoolWorker, number>();
let killsCompilersOnExit = false;

function killCompiler(worker: PoolWorker): void {
  const pid = compilers.get(worker);
  compilers.delete(worker);
  if (pid !== undefined) killPid(pid);
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // it ended already
  }
}

/** An extra worker (not the first) that has had nothing to do for this long is stopped. */
const EXTRA_WORKER_IDLE_MS = 30_000;

/** `entry`: the worker's file beside this one (default `check-worker`; `native-check-worker` checks with TypeScript 7's compiler). */
export function createCheckPool(options: { memoryLimitMb: number; maxWorkers: number; entry?: string }): CheckPool {
  const workers: PoolWorker[] = [];
  const queue: PendingCheck[] = [];
  let nextId = 1;

  const stopped = (message: string): Diagnostic[] => [
    { line: 1, column: 1, code: TYPE_CHECK_STOPPED, message: `${message}; simplify its types or run with check: false` },
  ];

  const stop = (worker: PoolWorker, diagnostics: Diagnostic[]): void => {
    if (worker.stopped) return;
    worker.stopped = true;
    clearTimeout(worker.timer);
    clearTimeout(worker.idleTimer);
    workers.splice(workers.indexOf(worker), 1);
    const { threadId } = worker.thread;
    // Once it has stopped, nothing it made is left in the temporary folder (native-check.ts's folders).
    void worker.thread.terminate().then(() => {
      killThreadCompilers(threadId);
      removeThreadFolders(threadId);
    });
    // A process the worker started (the native compiler) does not end with the thread.
    killCompiler(worker);
    worker.check?.resolve(diagnostics);
    worker.check = undefined;
    pump();
  };

  const startTimer = (worker: PoolWorker, timeoutMs: number): void => {
    clearTimeout(worker.timer);
    worker.timer = setTimeout(
      () => stop(worker, stopped(`the type-check of this program took longer than ${timeoutMs / 1000} s and was stopped`)),
      timeoutMs,
    );
  };

  const onMessage = (worker: PoolWorker, message: CheckWorkerToHost): void => {
    if (worker.stopped) {
      // A compiler the thread started just before the pool stopped it: it does not end with the thread.
      if (message.type === 'compiler' && message.pid !== undefined) killPid(message.pid);
      return;
    }
    if (message.type === 'compiler') {
      if (message.pid === undefined) {
        compilers.delete(worker);
        return;
      }
      compilers.set(worker, message.pid);
      if (!killsCompilersOnExit) {
        killsCompilersOnExit = true;
        process.once('exit', () => [...compilers.keys()].forEach(killCompiler));
      }
      return;
    }
    if (message.type === 'ready') {
      worker.ready = true;
    } else if (message.type === 'started') {
      // From here on the program is what takes the time (loading a project is not its doing).
      if (worker.check?.id === message.id) startTimer(worker, worker.check.timeoutMs);
      return;
    } else if (worker.check?.id === message.id) {
      clearTimeout(worker.timer);
      const done = worker.check;
      worker.check = undefined;
      done.resolve(message.diagnostics);
    }
    pump();
  };

  const onError = (worker: PoolWorker, error: Error & { code?: string }): void => {
    if (worker.stopped) return;
    const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
    if (!worker.ready && worker.check === undefined && !workers.some((other) => other !== worker && other.ready)) {
      // It never started: a fault of the host (installation, limits), not of any program.
      const failure = new SandboxError('TYPE_CHECKER_FAILED', `the type checker could not start: ${error.message}`, { cause: error });
      queue.splice(0).forEach((pending) => pending.reject(failure));
    }
    stop(
      worker,
      outOfMemory
        ? stopped(`the type-check of this program used more than ${options.memoryLimitMb} MB and was stopped`)
        : stopped(`the type-check of this program stopped unexpectedly (${error.message})`),
    );
  };

  const spawn = (): void => {
    const worker: PoolWorker = {
      thread: startCheckWorker(options.memoryLimitMb, options.entry ?? 'check-worker'),
      ready: false,
      stopped: false,
      check: undefined,
      timer: undefined,
      idleTimer: undefined,
    };
    workers.push(worker);
    worker.thread.on('message', (message: CheckWorkerToHost) => onMessage(worker, message));
    worker.thread.on('error', (error) => onError(worker, error));
    worker.thread.on('exit', (code) => onError(worker, new Error(`its worker exited with code ${code}`)));
  };

  const assign = (worker: PoolWorker, pending: PendingCheck): void => {
    clearTimeout(worker.idleTimer);
    const id = nextId++;
    worker.check = { ...pending, id };
    // Also bounds the loading of a project, should that ever hang.
    startTimer(worker, pending.timeoutMs);
    const request: HostToCheckWorker = { type: 'check', id, outDir: pending.outDir, code: pending.code, timeoutMs: pending.timeoutMs };
    worker.thread.postMessage(request);
  };

  /** Hands queued checks to idle workers, starts workers the queue needs, and lets idle ones not hold the process. */
  function pump(): void {
    for (let idle = findIdle(); idle !== undefined && queue.length > 0; idle = findIdle()) assign(idle, queue.shift() as PendingCheck);
    while (queue.length > workers.filter((worker) => !worker.ready).length && workers.length < options.maxWorkers) spawn();
    for (const worker of workers) {
      const needed = worker.check !== undefined || (!worker.ready && queue.length > 0);
      if (needed) worker.thread.ref();
      else worker.thread.unref();
      if (!needed && worker.ready && worker !== workers[0] && worker.idleTimer === undefined) {
        worker.idleTimer = setTimeout(() => stop(worker, []), EXTRA_WORKER_IDLE_MS).unref();
      }
    }
  }

  const findIdle = (): PoolWorker | undefined => workers.find((worker) => worker.ready && worker.check === undefined);

  return {
    check(job) {
      return new Promise<Diagnostic[]>((resolve, reject) => {
        queue.push({ ...job, resolve, reject });
        pump();
      });
    },
    warm() {
      if (workers.length > 0) return;
      spawn();
      pump();
    },
  };
}

// Node 20 does not apply `--import` in a worker's execArgv: from sources, the worker registers tsx
// itself before it loads the entry. (tsx's CommonJS API resolves its ESM half wrongly: take the .mjs.)
const TSX_BOOTSTRAP = `const { workerData } = require('node:worker_threads');
import(workerData.tsx).then(({ register }) => { register(); return import(workerData.entry); });`;

function startCheckWorker(memoryLimitMb: number, file: string): Worker {
  const here = fileURLToPath(import.meta.url);
  const extension = path.extname(here);
  const entry = pathToFileURL(path.join(path.dirname(here), `${file}${extension}`));
  const options = { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: memoryLimitMb } };
  if (extension !== '.ts') return new Worker(entry, options);
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  return new Worker(TSX_BOOTSTRAP, { ...options, eval: true, workerData: { tsx, entry: entry.href } });
}

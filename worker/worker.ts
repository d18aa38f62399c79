import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { ResolvedConfig } from '../config/index.js';
import { errorMessage } from '../core/index.js';
import type { Space, SpaceOptions } from '../space/index.js';
import {
  createApprovalWaiter,
  createEnginePool,
  createPool,
  createStoredSessionState,
  createStoreWriter,
  describeStore,
  ensureStoreSchema,
  holdLiveness,
  migrateDbosSchema,
  storeUnavailable,
  type ApprovalWaiter,
} from '../store/internals.js';
import { createWorkerApprovalHandler } from './approval-handler.js';
import { startAhead } from './attempt-start.js';
import { applicationVersion } from './app-version.js';
import { configureDbos, launchDbos, registerWorkflows, setActiveExecutor, workerIsActive } from './dbos-application.js';
import { retentionOf, startRetention, startTakeoverSweep } from './sweeps.js';
import { wakeOnQueued } from './queue-wake.js';
import { createWorkExecutor } from './work-kinds.js';
import { WorkerState } from './worker-state.js';

export interface WorkerOptions {
  /** The store's PostgreSQL URL. */
  store: string;
  config: ResolvedConfig;
  /** Opens this worker's space (the CLI passes agents' `openSpace`, so agent capabilities work too). */
  openSpace: (options: SpaceOptions) => Promise<Space>;
  /** Runs this worker executes at once (default 4). */
  concurrency?: number;
  /** This worker's id in the store (default: host, pid and a random part). */
  executorId?: string;
  /** What the worker does, line by line (took a run, took over a dead worker's runs, …). */
  onNotice?: (line: string) => void;
  /** The worker lost the store (its liveness connection): it must stop, as others may take its runs. */
  onFatal?: (error: Error) => void;
  /** How often to look for runs of dead workers, in ms (default 1000). */
  takeoverIntervalMs?: number;
  /**
   * How often the worker polls the queue in case a notification was lost, in ms (default 1000): a
   * submitter's notification wakes it at once, as does the end of one of its runs.
   */
  queuePollMs?: number;
}

export interface DurableWorker {
  readonly executorId: string;
  close(): Promise<void>;
}

/**
 * Closes what a start opened, newest first, when it fails half-way: a library caller keeps no held
 * liveness lock (its executor id would look alive) and may start a worker again.
 */
class StartUndo {
  readonly #opened: (() => Promise<unknown>)[] = [];
  constructor(private readonly state: WorkerState) {}
  push(close: () => Promise<unknown>): void {
    this.#opened.push(close);
  }
  readonly fail = async (error: unknown): Promise<never> => {
    this.state.closing = true;
    for (const close of this.#opened.reverse()) await close().catch(() => undefined);
    throw error;
  };
}

/**
 * Starts a worker: it executes queued runs from the store with its own space (sandbox pool, MCP
 * connections), journals every call, waits for approvals in memory while it lives, and takes over
 * the runs of workers that died. One worker per process.
 */
export async function startWorker(options: WorkerOptions): Promise<DurableWorker> {
  if (workerIsActive()) throw new Error('a worker is already running in this process (DBOS runs one application per process)');
  const executorId = options.executorId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const notice = options.onNotice ?? (() => undefined);
  const durable = options.config.durable ?? {};
  const retention = retentionOf(durable);
  const state = new WorkerState(options.store, createPool(options.store), executorId, durable, notice);
  const undo = new StartUndo(state);
  undo.push(() => state.pool.end());
  const self: { worker?: DurableWorker } = {};
  const { liveness, waiter } = await holdTheStore(state, undo, options, () => self.worker);
  const space = await options
    .openSpace({
      config: options.config,
      approvalHandler: createWorkerApprovalHandler(state, waiter),
      // Session state in the store: a run taken over by another worker sees what its session kept.
      sessionState: createStoredSessionState(state.pool, options.store),
      journal: (call, perform) => {
        const run = state.runOf(call.context.runId);
        return run === undefined ? perform() : run.journal.perform(call, perform);
      },
    })
    .catch(undo.fail);
  undo.push(() => space.close());
  // Everything this worker writes to the store goes through one writer, redacted with the space's secrets.
  state.writer = createStoreWriter(state.pool, space.secrets);
  // Build (when stale) and load the capabilities before taking runs: a worker that says it is ready is.
  await space.capabilities().catch(undo.fail);
  setActiveExecutor(createWorkExecutor(state, space));
  registerWorkflows();
  const version = applicationVersion();
  const enginePool = createEnginePool(options.store);
  undo.push(() => enginePool.end());
  configureDbos({ store: options.store, enginePool, version, executorId, notice });
  undo.push(async () => setActiveExecutor(undefined));
  // Closed even when the launch fails half-way: what it started (its queue runner, its LISTEN
  // connection) would keep a process that could not start alive, taking no runs.
  undo.push(() => DBOS.shutdown({ deregister: false }));
  // A queued run notifies the queue channel: the worker takes it then, not only at its poll every second.
  const wakeUp = await wakeOnQueued(options.store, notice, options.queuePollMs).catch(undo.fail);
  undo.push(() => wakeUp.close());
  const concurrency = options.concurrency ?? 4;
  await launchDbos(concurrency, wakeUp.pollingMs).catch(undo.fail);
  // A code run claimed directly starts its attempt while DBOS sets out to run it.
  wakeUp.launched(version, concurrency, (runs) => startAhead(state, runs));
  notice(`worker ${executorId} (${version}) takes runs from ${describeStore(options.store)}`);
  const sweep = startTakeoverSweep(state, version, options.takeoverIntervalMs ?? 1000);
  const pruner = retention === undefined ? undefined : startRetention(state, retention);
  const worker: DurableWorker = {
    executorId,
    async close() {
      if (state.closing) return;
      state.closing = true;
      clearInterval(sweep);
      if (pruner !== undefined) clearInterval(pruner);
      // Runs still going stay PENDING under this worker's id; once its lock is free, another worker takes them over.
      await DBOS.shutdown({ deregister: false }).catch(() => undefined);
      await wakeUp.close();
      setActiveExecutor(undefined);
      await Promise.allSettled([space.close(), waiter.close()]);
      // What the runs' journals hold is in the store before another worker may take them over.
      await Promise.allSettled([...state.runs.values()].map((run) => run.journal.flush()));
      await liveness.release();
      await Promise.allSettled([enginePool.end(), state.pool.end()]);
    },
  };
  self.worker = worker;
  return worker;
}

/**
 * The worker's hold on the store: its tables and DBOS's schema made, its liveness lock (losing it
 * stops the worker: others may take its runs over), and the waiter its approvals are decided through.
 */
async function holdTheStore(
  state: WorkerState,
  undo: StartUndo,
  options: WorkerOptions,
  worker: () => DurableWorker | undefined,
): Promise<{ liveness: { release(): Promise<void> }; waiter: ApprovalWaiter }> {
  const { store, pool, notice } = state;
  await ensureStoreSchema(store, pool).catch(undo.fail);
  // DBOS's schema, made (or upgraded) under the store's set-up lock before DBOS starts: workers starting
  // together take turns, and DBOS.launch only checks it (runMigrations: false).
  await migrateDbosSchema(store).catch((error: unknown) => undo.fail(storeUnavailable(store, error)));
  const liveness = await holdLiveness(store, pool, state.executorId, (error) => {
    if (state.closing) return;
    // Others may take this worker's runs over from now on: it must not go on with them.
    notice(`lost the store ${describeStore(store)}: stopping (${errorMessage(error)})`);
    void worker()?.close();
    options.onFatal?.(new Error(`lost the store ${describeStore(store)}: ${errorMessage(error)}`));
  }).catch(undo.fail);
  undo.push(() => liveness.release());
  const waiter = await createApprovalWaiter(store, pool).catch(undo.fail);
  undo.push(() => waiter.close());
  return { liveness, waiter };
}

import { randomUUID } from 'node:crypto';
import type { RunResult } from '../core/index.js';
import { DurableError } from './durable-error.js';
import { readRunProgress, type DurableRunEvent, type RunEndNote } from './run-events.js';
import { notifyRunsQueued } from './dbos-schema.js';
import { queueRun, workflowErrorMessage } from './queue-run.js';
import { openStoreConnection, type StoreConnection } from './store-connection.js';
import { RUN_WORKFLOW, TASK_WORKFLOW, type DurableRunRequest, type DurableTaskRequest } from './workflow-names.js';

export interface SubmitRunOptions {
  /** The store's PostgreSQL URL. */
  store: string;
  code: string;
  /** Type-check against the built declarations first (default true). */
  check?: boolean;
  timeoutMs?: number;
  /** The run's id (default: a fresh UUID); submitting the same id again attaches to that run. */
  runId?: string;
  /** Each event of the run as a worker reports it: started (or taken over), log lines, approvals; `seq` orders them in the store. */
  onEvent?: (event: DurableRunEvent, seq: number) => void;
  /** Follow only the events after this one (a `seq` seen before): who attaches again skips what it relayed already. */
  afterSeq?: number;
  /** Called once when the run is queued and no worker is alive to take it. */
  onNoWorker?: (runId: string) => void;
  /**
   * Queue the run only if a worker is alive (looked at in the statement that queues it): else reject
   * with a DurableError `NO_LIVE_WORKER`, nothing queued.
   */
  onlyWithLiveWorker?: boolean;
  signal?: AbortSignal;
  /** The run's session-state scope (`@capabilities/session`): the worker runs it with this session. */
  session?: string;
}

/**
 * Submits a program to the store's queue and waits for its result, streaming its events (through
 * `shared` connections when given, e.g. a serve replica's; else through its own): some
 * `agent-spaces worker` (on any machine reaching the database) runs it, another takes it over if
 * that one dies. Leaving (the signal) does not cancel the run: it stays in the store.
 *
 * @example
 * const result = await submitRun({ store: 'postgres://localhost/spaces', code, onEvent: console.log });
 */
export async function submitRun(options: SubmitRunOptions, shared?: StoreConnection): Promise<RunResult & { runId: string }> {
  const request: DurableRunRequest = {
    code: options.code,
    check: options.check ?? true,
    ...(options.timeoutMs ? { limits: { timeoutMs: options.timeoutMs } } : {}),
    ...(options.session ? { session: options.session } : {}),
  };
  const runId = options.runId ?? randomUUID();
  const ended = await submitWorkflow(options, RUN_WORKFLOW, runId, request, shared);
  if (ended.ok) return { ...(ended.result as RunResult), runId };
  return {
    runId,
    success: false,
    result: undefined,
    logs: [],
    timedOut: false,
    calls: 0,
    durationMs: 0,
    error: { name: 'DurableError', code: ended.status, message: ended.message },
  };
}

export interface SubmitTaskOptions extends Omit<SubmitRunOptions, 'code' | 'check' | 'timeoutMs'> {
  task: string;
  context?: string;
  /** Model id and endpoint; the worker's config and environment give the key. */
  model?: { model?: string; baseURL?: string };
  budget?: Record<string, number>;
}

/**
 * Submits a planner task: a worker executes it; if that worker dies, another resumes it after its
 * last finished model step (earlier replies and finished calls come from the store).
 */
export async function submitTask<Result = unknown>(options: SubmitTaskOptions, shared?: StoreConnection): Promise<Result> {
  const request: DurableTaskRequest = {
    task: options.task,
    ...(options.context ? { context: options.context } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
  };
  const taskId = options.runId ?? randomUUID();
  const ended = await submitWorkflow(options, TASK_WORKFLOW, taskId, request, shared);
  if (ended.ok) return ended.result as Result;
  throw new Error(ended.message);
}

/** How long after queueing a run its submitter first looks for a live worker (after that, whenever it wakes while the run waits). */
const FIRST_WORKER_LOOK_MS = 100;

type Ended = { ok: true; result: unknown } | { ok: false; status: string; message: string };

/**
 * Enqueues one workflow and follows its events until it ends, through `shared` connections (a serve
 * replica's, for all the runs it follows) or connections of its own.
 */
async function submitWorkflow(
  options: Omit<SubmitRunOptions, 'code'>,
  workflowName: string,
  runId: string,
  request: DurableRunRequest | DurableTaskRequest,
  shared?: StoreConnection,
): Promise<Ended> {
  const own = shared === undefined ? await openStoreConnection(options.store, 3) : undefined;
  const connection = shared ?? (own as StoreConnection);
  const { pool, dbos } = connection;
  let wake: () => void = () => undefined;
  let stopWaking: () => void = () => undefined;
  // The run's end, when its notification carried it: used once every event before it was relayed.
  let noted: RunEndNote | undefined;
  // Listen before enqueueing, so no event of the run can come before we listen.
  const stopListening = connection.onRunEvents(runId, (end) => {
    noted ??= end;
    wake();
  });
  // The first look for a live worker, once the run had a moment to start (not on its way to a worker).
  let firstLook: NodeJS.Timeout | undefined;
  try {
    const queued = await queueRun(pool, { workflowName, runId, request, onlyWithLiveWorker: options.onlyWithLiveWorker === true });
    if (!queued.queued)
      throw new DurableError('NO_LIVE_WORKER', `no worker is alive for the store, so ${runId} was not queued`, { details: { runId } });
    // Its row notified the workers as it committed (the store's trigger, store/dbos-schema.ts; where the
    // trigger could not be added yet, this notifies them): an idle one takes it now.
    await notifyRunsQueued(connection.url, pool, [runId]);
    let warned = false;
    let looking: Promise<void> | undefined;
    const warnWithoutWorkers = (): Promise<void> =>
      (looking ??= (async () => {
        if (warned || (await connection.liveWorkers()).length > 0) return;
        warned = true;
        options.onNoWorker?.(runId);
      })().finally(() => {
        looking = undefined;
      }));

    let seq = options.afterSeq ?? 0;
    let started = false;
    let waited = false;
    firstLook = setTimeout(() => {
      // A failed look is the loop's to repeat (after each wake while the run waits in the queue).
      if (!started) warnWithoutWorkers().catch(() => undefined);
    }, FIRST_WORKER_LOOK_MS);
    /** Relays the events after `seq` to onEvent, in order, up to the end (returned) if it is among them. */
    const relay = (events: readonly { seq: number; event: DurableRunEvent }[]): Ended | undefined => {
      for (const { seq: next, event } of events) {
        if (next <= seq) continue;
        seq = next;
        if (event.kind === 'started') started = true;
        if (event.kind === 'end') return { ok: true, result: event.result };
        options.onEvent?.(event, seq);
      }
      return undefined;
    };
    // The end came with its notification, and with every event this follower has not relayed yet: no read.
    const endNoted = (): Ended | undefined =>
      noted !== undefined && endsAfter(noted, seq) ? relay([...noted.earlier, { seq: noted.seq, event: noted.event }]) : undefined;
    const pruned: Ended = {
      ok: false,
      status: 'PRUNED',
      message: `${runId} ended, and its rows were deleted from the store (durable.retention) before its result was read`,
    };
    // One listener for the whole wait (one per turn would pile up on a long run's signal).
    const onAbort = (): void => wake();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    stopWaking = () => options.signal?.removeEventListener('abort', onAbort);
    for (;;) {
      if (options.signal?.aborted) throw new Error(`stopped waiting for ${runId}; it stays in the store and runs on`);
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
        // The run may end while this process was not listening (a lost notification): look again now and then.
        const timer = setTimeout(resolve, 2000);
        timer.unref();
      });
      const early = endNoted();
      if (early !== undefined) return early;
      // Its new events and DBOS's status of it, in one snapshot: the end event is written before DBOS
      // records SUCCESS, so a run that succeeded shows its end here unless retention deleted it.
      const progress = await readRunProgress(pool, runId, seq);
      const ended = relay(progress.events) ?? endNoted();
      if (ended !== undefined) return ended;
      const status = progress.status;
      // Enqueued above, gone now: it ended and retention deleted it before its end event was read here.
      if (status === undefined) return pruned;
      if (status === 'ERROR' || status === 'CANCELLED' || status === 'MAX_RECOVERY_ATTEMPTS_EXCEEDED') {
        const failed = await dbos.getWorkflow(runId);
        return { ok: false, status, message: `${runId} ended with status ${status}: ${workflowErrorMessage(failed?.error)}` };
      }
      if (status === 'SUCCESS') {
        // Our rows of it were deleted (retention) and DBOS's were not: its output is the result.
        const output = (await dbos.getWorkflow(runId))?.output;
        return output !== undefined && output !== null ? { ok: true, result: output } : pruned;
      }
      // Still queued after a wait: is any worker alive to take it?
      if (waited && !started && status === 'ENQUEUED') await warnWithoutWorkers();
      await woken;
      waited = true;
    }
  } finally {
    clearTimeout(firstLook);
    stopWaking();
    stopListening();
    await own?.close();
  }
}

/** Whether `note` holds every event of its run after `seq` (the last one a follower relayed): all of them, or the latest ones from `seq` on. */
function endsAfter(note: RunEndNote, seq: number): boolean {
  return note.complete || note.earlier.some((earlier) => earlier.seq <= seq);
}

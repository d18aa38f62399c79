// Waking DBOS's queue runner when a run is queued, instead of waiting for its next poll.
//
// DBOS (5.x) takes queued workflows by polling each queue (at most every `minPollingIntervalMs`), and
// has no call that starts a poll now: a run submitted to an idle worker waited up to a whole interval
// (100 ms, most of `execute_code`'s time through `serve --store`). Submitters NOTIFY the run queue
// channel after enqueueing (store/submit-run.ts); the worker LISTENs to it and asks the runner for a
// poll at once. The runner's scheduler loop sleeps in a function of its own, so the worker reaches it
// through three of the runner's methods (from DBOS's published `internal/*` entry points, as
// store/dbos-schema.ts does for its migration): `scheduleDueQueues` (called each turn of the loop,
// with the function that ends its sleep), `adjustInterval` (called after each poll, which sets the
// queue's next poll) and `ensureState` (when the runner first sees a queue). If any is missing (another
// DBOS), the hook is not installed, the worker says so, and the queue is polled every 100 ms as before.
//
// Runs ending also ask for a poll: a worker at its concurrency limit claims nothing when notified,
// and takes the next run when one of its own ends (DBOS releases the run's slot after recording its
// outcome, so the request is made then, through the system database's `trackRunningWorkflow`).
import { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { wfQueueRunner } from '@dbos-inc/dbos-sdk/internal/wfqueue';
import { listenToStore, RUN_QUEUE, RUN_QUEUE_CHANNEL } from '../store/internals.js';

/** How often the queue is polled when notifications wake the worker (a lost one waits this long at most). */
export const WOKEN_POLL_MS = 1000;
/** How often it is polled when this DBOS's runner cannot be woken (DBOS 5's runner wrapped here otherwise). */
export const POLLED_MS = 100;

interface QueueState {
  queue: { name: string };
  nextPollAt: number;
}

/** The parts of DBOS's queue runner the hook wraps (all present in @dbos-inc/dbos-sdk 5.x). */
interface RunnerInternals {
  states: Map<string, QueueState>;
  scheduleDueQueues(exec: unknown, now: number, max: number, inFlight: Map<string, unknown>, wake: () => void): void;
  adjustInterval(exec: unknown, state: QueueState, contention: boolean): void;
  ensureState(queue: { name: string }, now: number): void;
}

/** The part of DBOS's system database the hook wraps to hear of a run's end. */
interface SystemDatabaseInternals {
  trackRunningWorkflow(workflowId: string, entry: { promise?: Promise<unknown> }, promise: Promise<unknown>): void;
}

/** Whether a hook is installed in this process's runner. */
let installed = false;

export interface QueueWake {
  /** Asks for a poll of the queue as soon as the runner can start one (coalesced: one at a time). */
  request(): void;
  /** How many polls a request started (a notification or a run's end), for tests and benches. */
  readonly polls: number;
  /** Takes the runner's and the system database's methods back. */
  uninstall(): void;
}

/**
 * Wraps DBOS's queue runner so that `request()` starts a poll of `queueName` now; undefined (and
 * nothing changed) when this DBOS's runner lacks the methods wrapped.
 */
export function installQueueWake(queueName: string): QueueWake | undefined {
  // DBOS's runner is one per process, as a worker is: wrapping the wrappers would answer each request twice.
  if (installed) throw new Error(`DBOS's queue runner is hooked already (one worker per process)`);
  const runner = wfQueueRunner as unknown as RunnerInternals;
  const methods = ['scheduleDueQueues', 'adjustInterval', 'ensureState'] as const;
  if (!(runner.states instanceof Map) || methods.some((name) => typeof runner[name] !== 'function')) return undefined;
  const original = {
    scheduleDueQueues: runner.scheduleDueQueues,
    adjustInterval: runner.adjustInterval,
    ensureState: runner.ensureState,
  };
  installed = true;
  let pending = false;
  let polls = 0;
  let wakeLoop: (() => void) | undefined;

  runner.scheduleDueQueues = (exec, now, max, inFlight, wake) => {
    wakeLoop = wake;
    const state = runner.states.get(queueName);
    // This turn starts the queue's poll (it is due, and no poll of it is running): that poll sees
    // every run committed before the request, so the request is answered.
    if (pending && state !== undefined && state.nextPollAt <= now && !inFlight.has(queueName) && inFlight.size < max) {
      pending = false;
      polls += 1;
    }
    original.scheduleDueQueues.call(runner, exec, now, max, inFlight, wake);
  };
  runner.adjustInterval = (exec, state, contention) => {
    original.adjustInterval.call(runner, exec, state, contention);
    // A request that came during this poll may concern a run its query did not see: poll again now
    // (the runner wakes its loop after each poll).
    if (pending && state.queue.name === queueName) state.nextPollAt = Date.now();
  };
  runner.ensureState = (queue, now) => {
    const fresh = !runner.states.has(queue.name);
    original.ensureState.call(runner, queue, now);
    // The queue's first poll is at once, not one interval after the runner found it.
    const state = runner.states.get(queue.name);
    if (fresh && queue.name === queueName && state !== undefined) state.nextPollAt = now;
  };

  const request = (): void => {
    pending = true;
    const state = runner.states.get(queueName);
    if (state !== undefined) state.nextPollAt = Math.min(state.nextPollAt, Date.now());
    wakeLoop?.();
  };
  return {
    request,
    get polls() {
      return polls;
    },
    uninstall() {
      Object.assign(runner, original);
      installed = false;
      pending = false;
      wakeLoop = undefined;
    },
  };
}

/**
 * Asks `wake` for a poll whenever a workflow this process runs ends (after DBOS released its slot).
 * Returns what takes the hook back; undefined when this DBOS's system database lacks the method.
 */
export function requestOnRunEnd(systemDatabase: unknown, wake: QueueWake): (() => void) | undefined {
  const database = systemDatabase as SystemDatabaseInternals | undefined;
  if (database === undefined || typeof database.trackRunningWorkflow !== 'function') return undefined;
  const original = database.trackRunningWorkflow;
  database.trackRunningWorkflow = (workflowId, entry, promise) => {
    original.call(database, workflowId, entry, promise);
    // entry.promise settles after the slot is released (DBOS's own `finally`); it never rejects.
    void entry.promise?.then(() => wake.request());
  };
  return () => {
    database.trackRunningWorkflow = original;
  };
}

export interface WorkerWakeUp {
  /** The queue's polling interval to register: long when notifications wake the worker, short when they cannot. */
  readonly pollingMs: number;
  /** Polls started by a notification or a run's end (0 when the runner could not be hooked). */
  readonly polls: number;
  /** After DBOS's launch: a run's end asks for a poll too. */
  launched(): void;
  /** After DBOS's shutdown: the listener closed, DBOS's methods given back. */
  close(): Promise<void>;
}

/**
 * The worker's wake-up: a LISTEN connection on the run queue channel whose notifications start a poll of
 * the run queue (and, after a lost connection, one poll once it listens again: notifications sent
 * meanwhile are lost). Without a runner to hook, says so through `notice` and leaves polling to DBOS.
 */
export async function wakeOnQueued(store: string, notice: (line: string) => void, pollingMs = WOKEN_POLL_MS): Promise<WorkerWakeUp> {
  const wake = installQueueWake(RUN_QUEUE);
  if (wake === undefined) {
    notice(`this DBOS's queue runner cannot be woken: the worker polls the queue every ${POLLED_MS} ms`);
    return { pollingMs: POLLED_MS, polls: 0, launched: () => undefined, close: async () => undefined };
  }
  const listener = await listenToStore(store, [RUN_QUEUE_CHANNEL], wake.request, wake.request).catch((error: unknown) => {
    wake.uninstall();
    throw error;
  });
  let unhookEnd: (() => void) | undefined;
  return {
    pollingMs,
    get polls() {
      return wake.polls;
    },
    launched() {
      unhookEnd = requestOnRunEnd(DBOSExecutor.globalInstance?.systemDatabase, wake);
    },
    async close() {
      await listener.close();
      unhookEnd?.();
      wake.uninstall();
    },
  };
}

// Waking DBOS's queue runner when a run is queued, instead of waiting for its next poll.
//
// DBOS (5.x) takes queued workflows by polling each queue (at most every `minPollingIntervalMs`), and
// has no call that starts a poll now: a run submitted to an idle worker waited up to a whole interval
// (100 ms, most of `execute_code`'s time through `serve --store`). A queued run's row notifies the run
// queue channel as it commits (the store's trigger, store/dbos-schema.ts); the worker LISTENs to it and
// claims runs, or asks the runner for a poll, at once. The runner's scheduler loop sleeps in a function
// of its own, so the worker reaches it through three of the runner's methods (from DBOS's published
// `internal/*` entry points, as store/dbos-schema.ts does for its migration): `scheduleDueQueues`
// (called each turn of the loop, with the function that ends its sleep), `adjustInterval` (called after
// each poll, which sets the queue's next poll) and `ensureState` (when the runner first sees a queue). If
// any is missing (another DBOS), the hook is not installed, the worker says so, and the queue is polled
// every 100 ms as before.
//
// A worker with room that hears of a queued run, while no poll of the queue runs, claims the queue's next
// runs itself (worker/direct-claim.ts: one statement instead of a poll's five) in the queue's lane. A
// worker at its concurrency limit claims nothing when notified; it polls when one of its own runs ends
// (DBOS releases the run's slot after recording its outcome, so that is when, through the system
// database's `trackRunningWorkflow`), and only while a run may be waiting: a notification found it full,
// or its last poll or claim filled the room it had (what each poll claimed is read through DBOS's
// `findAndMarkStartableWorkflows`, wrapped; the wrapper also holds each poll to this worker's own limit).
import { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { runWithAbortableDbRetries } from '@dbos-inc/dbos-sdk/internal/context';
import { wfQueueRunner } from '@dbos-inc/dbos-sdk/internal/wfqueue';
import { listenToStore, RUN_QUEUE, RUN_QUEUE_CHANNEL } from '../store/internals.js';
import { canClaimDirectly, claimableQueue, claimNext, roomFor, type ClaimedQueue, type ClaimedRun } from './direct-claim.js';

/** How a worker takes queued runs itself (worker/direct-claim.ts). */
export interface DirectClaim {
  /** Whether runs of `queue` may be claimed by one statement (no limit shared with other workers, no partitions). */
  claimable(queue: ClaimedQueue): boolean;
  /** How many more runs of `queue` this worker may run now. */
  room(queue: ClaimedQueue): number;
  /** Claims up to `room` of the queue's next runs and starts them (not once `signal` aborted); their ids. */
  take(queue: ClaimedQueue, room: number, signal: AbortSignal): Promise<string[]>;
}

/** How often the queue is polled when notifications wake the worker (a lost one waits this long at most). */
export const WOKEN_POLL_MS = 1000;
/** How often it is polled when this DBOS's runner cannot be woken (DBOS 5's runner wrapped here otherwise). */
export const POLLED_MS = 100;

interface QueueState {
  queue: ClaimedQueue;
  nextPollAt: number;
}

/** The parts of DBOS's queue runner the hook wraps (all present in @dbos-inc/dbos-sdk 5.x). */
interface RunnerInternals {
  isRunning?: boolean;
  /** The runner's stop signal: DBOS's retries of a statement give up once it aborts. */
  abortController?: AbortController;
  states: Map<string, QueueState>;
  scheduleDueQueues(exec: unknown, now: number, max: number, inFlight: Map<string, Promise<unknown>>, wake: () => void): void;
  adjustInterval(exec: unknown, state: QueueState, contention: boolean): void;
  ensureState(queue: { name: string }, now: number): void;
}

/** The parts of DBOS's system database the hooks wrap: to hear of a run's end, and of what a poll claimed. */
interface SystemDatabaseInternals {
  trackRunningWorkflow(workflowId: string, entry: { promise?: Promise<unknown> }, promise: Promise<unknown>): void;
  findAndMarkStartableWorkflows(
    queue: ClaimedQueue,
    executorId: string,
    appVersion: string,
    partitionKey: string | undefined,
    localRunning?: number,
    ...rest: unknown[]
  ): Promise<string[]>;
}

/** The hook installed in this process's runner, if any. */
let installed: QueueWake | undefined;

/** What this process's hook did so far (its polls and direct claims); undefined without one. For tests and benches. */
export function queueWakeCounts(): { polls: number; claims: number } | undefined {
  return installed === undefined ? undefined : { polls: installed.polls, claims: installed.claims };
}

export interface QueueWake {
  /** Asks for a poll of the queue as soon as the runner can start one (coalesced: one at a time). */
  request(): void;
  /**
   * A run was queued: claims the queue's next runs at once when this worker has room and the queue's
   * lane is free (with direct claims, set once DBOS runs), else asks for a poll.
   */
  offer(): void;
  /** Enables direct claims on a notification (undefined: every notification asks for a poll). */
  claimWith(direct: DirectClaim | undefined): void;
  /** One of this worker's runs ended (its slot released): polls if a run may be waiting for that slot. */
  runEnded(): void;
  /** A poll of the queue starts its claim: what to give `pollFound` when it is done. */
  pollStarts(): number;
  /** A poll claimed `found` runs where it had `room`: with room left and no run declined since `since`, no run waits. */
  pollFound(since: number, found: number, room: number): void;
  /** How many polls a request started (a notification or a run's end), for tests and benches. */
  readonly polls: number;
  /** How many runs this worker claimed directly, on a notification. */
  readonly claims: number;
  /** Takes the runner's and the system database's methods back. */
  uninstall(): void;
}

/**
 * Wraps DBOS's queue runner so that `request()` starts a poll of `queueName` now; undefined (and
 * nothing changed) when this DBOS's runner lacks the methods wrapped.
 */
export function installQueueWake(queueName: string): QueueWake | undefined {
  // DBOS's runner is one per process, as a worker is: wrapping the wrappers would answer each request twice.
  if (installed !== undefined) throw new Error(`DBOS's queue runner is hooked already (one worker per process)`);
  const runner = wfQueueRunner as unknown as RunnerInternals;
  const methods = ['scheduleDueQueues', 'adjustInterval', 'ensureState'] as const;
  if (!(runner.states instanceof Map) || methods.some((name) => typeof runner[name] !== 'function')) return undefined;
  const original = {
    scheduleDueQueues: runner.scheduleDueQueues,
    adjustInterval: runner.adjustInterval,
    ensureState: runner.ensureState,
  };
  let pending = false;
  let polls = 0;
  let claims = 0;
  let wakeLoop: (() => void) | undefined;
  // The runner's polls in flight, by queue (its lanes), and how many may run at once: seen at its first turn.
  let lanes: { inFlight: Map<string, Promise<unknown>>; max: number } | undefined;
  let direct: DirectClaim | undefined;
  // A run was heard of while this worker had no free slot (or a poll filled it): the end of one of its
  // runs polls for it. Cleared by a poll that found fewer runs than it had room for, when no run was
  // heard of and declined since it started.
  let missed = false;
  let declined = 0;

  runner.scheduleDueQueues = (exec, now, max, inFlight, wake) => {
    wakeLoop = wake;
    lanes = { inFlight, max };
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
    if (state.queue.name !== queueName) return;
    // A request that came during this poll may concern a run its query did not see: poll again now
    // (the runner wakes its loop after each poll).
    if (pending) state.nextPollAt = Date.now();
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
  const offer = (): void => {
    const state = runner.states.get(queueName);
    const stop = runner.abortController?.signal;
    // Not while DBOS shuts down (its runner stopped): a run claimed then would wait for a takeover.
    if (direct === undefined || state === undefined || stop === undefined || stop.aborted || runner.isRunning === false) return request();
    if (!direct.claimable(state.queue)) return request();
    const room = direct.room(state.queue);
    if (room <= 0) {
      missed = true;
      declined += 1;
      return;
    }
    const taken = lanes;
    // A poll of the queue is running (or the runner's lanes are full): its query may not have seen this run.
    if (taken === undefined || taken.inFlight.has(queueName) || taken.inFlight.size >= taken.max) return request();
    const since = declined;
    // The claim holds the queue's lane (no poll of the queue starts until it is done, nor another claim),
    // and DBOS's retries of its statements give up when DBOS stops, as a poll's do.
    const claim = direct;
    const claimed = runWithAbortableDbRetries(stop, () => claim.take(state.queue, room, stop)).then(
      (ids) => {
        claims += ids.length;
        hook.pollFound(since, ids.length, room);
      },
      // The store refused the statement (it is gone, or DBOS stops): a poll looks again.
      () => request(),
    );
    taken.inFlight.set(
      queueName,
      claimed.finally(() => {
        taken.inFlight.delete(queueName);
        wakeLoop?.();
      }),
    );
  };
  const hook: QueueWake = {
    request,
    offer,
    claimWith(next) {
      direct = next;
    },
    pollStarts() {
      return declined;
    },
    pollFound(since, found, room) {
      if (found >= room) missed = true;
      else if (declined === since) missed = false;
    },
    runEnded() {
      // Without direct claims every run's end polls, as DBOS's poll is the only way in.
      if (direct === undefined || missed) request();
    },
    get polls() {
      return polls;
    },
    get claims() {
      return claims;
    },
    uninstall() {
      Object.assign(runner, original);
      installed = undefined;
      pending = false;
      wakeLoop = undefined;
      lanes = undefined;
      direct = undefined;
      missed = false;
      declined = 0;
    },
  };
  installed = hook;
  return hook;
}

/** Direct claims through this process's DBOS executor, within `concurrency`; undefined when this DBOS lacks what they need. */
export function claimThrough(
  exec: unknown,
  appVersion: string,
  concurrency: number,
  onClaimed?: (runs: readonly ClaimedRun[]) => void,
): DirectClaim | undefined {
  if (!canClaimDirectly(exec)) return undefined;
  return {
    claimable: claimableQueue,
    room: (queue) => roomFor(exec, queue.name, concurrency),
    take: (queue, room, signal) => claimNext(exec, queue, room, appVersion, signal, onClaimed),
  };
}

/**
 * Tells `wake` whenever a workflow this process runs ends (after DBOS released its slot: it polls then
 * when a run may be waiting for that slot), and what each poll of `queueName` found; each poll claims
 * within this worker's own `concurrency` (DBOS keeps the queue's per-worker limit in the queue's row,
 * shared by every worker and set by the last one started). Returns what takes the hooks back; undefined
 * (nothing hooked) when this DBOS's system database lacks the methods.
 */
export function followRuns(systemDatabase: unknown, wake: QueueWake, queueName: string, concurrency: number): (() => void) | undefined {
  const database = systemDatabase as SystemDatabaseInternals | undefined;
  if (
    database === undefined ||
    typeof database.trackRunningWorkflow !== 'function' ||
    typeof database.findAndMarkStartableWorkflows !== 'function'
  )
    return undefined;
  const original = {
    trackRunningWorkflow: database.trackRunningWorkflow,
    findAndMarkStartableWorkflows: database.findAndMarkStartableWorkflows,
  };
  database.trackRunningWorkflow = (workflowId, entry, promise) => {
    original.trackRunningWorkflow.call(database, workflowId, entry, promise);
    // entry.promise settles after the slot is released (DBOS's own `finally`); it never rejects.
    void entry.promise?.then(() => wake.runEnded());
  };
  database.findAndMarkStartableWorkflows = async (queue, executorId, appVersion, partitionKey, localRunning = 0, ...rest) => {
    if (queue.name !== queueName || partitionKey !== undefined)
      return original.findAndMarkStartableWorkflows.call(database, queue, executorId, appVersion, partitionKey, localRunning, ...rest);
    const since = wake.pollStarts();
    const room = concurrency - localRunning;
    // The queue as DBOS polls it, with this worker's limit in place of the shared row's.
    const own = Object.assign(Object.create(queue) as ClaimedQueue, { workerConcurrency: concurrency });
    const found = await original.findAndMarkStartableWorkflows.call(
      database,
      own,
      executorId,
      appVersion,
      partitionKey,
      localRunning,
      ...rest,
    );
    wake.pollFound(since, found.length, room);
    return found;
  };
  return () => {
    Object.assign(database, original);
  };
}

export interface WorkerWakeUp {
  /** The queue's polling interval to register: long when notifications wake the worker, short when they cannot. */
  readonly pollingMs: number;
  /** Polls started by a notification or a run's end (0 when the runner could not be hooked). */
  readonly polls: number;
  /** Runs claimed directly on their notification. */
  readonly claims: number;
  /**
   * After DBOS's launch: a run's end asks for a poll too, and notified runs are claimed directly
   * (`onClaimed` hears of each claim's runs before DBOS starts them).
   */
  launched(appVersion: string, concurrency: number, onClaimed?: (runs: readonly ClaimedRun[]) => void): void;
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
    return { pollingMs: POLLED_MS, polls: 0, claims: 0, launched: () => undefined, close: async () => undefined };
  }
  // A notification's payload is its run's id; the claim takes the queue's next runs, in order, whichever they are.
  const listener = await listenToStore(store, [RUN_QUEUE_CHANNEL], () => wake.offer(), wake.request).catch((error: unknown) => {
    wake.uninstall();
    throw error;
  });
  let unhookEnd: (() => void) | undefined;
  return {
    pollingMs,
    get polls() {
      return wake.polls;
    },
    get claims() {
      return wake.claims;
    },
    launched(appVersion, concurrency, onClaimed) {
      const exec = DBOSExecutor.globalInstance;
      unhookEnd = followRuns(exec?.systemDatabase, wake, RUN_QUEUE, concurrency);
      // Direct claims need to know what polls found (else a run's end could not tell whether one waits).
      const claim = unhookEnd === undefined ? undefined : claimThrough(exec, appVersion, concurrency, onClaimed);
      if (claim === undefined) notice(`this DBOS's executor cannot claim a notified run directly: the worker polls the queue for it`);
      wake.claimWith(claim);
    },
    async close() {
      await listener.close();
      unhookEnd?.();
      wake.uninstall();
    },
  };
}

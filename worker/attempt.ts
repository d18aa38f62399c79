import type { RunResult } from '../core/index.js';
import type { TaskResult } from '../planner/index.js';
import { appendRunEvent, closeRunApprovals, type DurableRunEvent } from '../store/internals.js';
import { attemptStart } from './attempt-start.js';
import { createCallCounter } from './call-key.js';
import { journalOf, type RunJournal } from './run-journal.js';
import type { WorkerState } from './worker-state.js';

/** What one kind of durable work (a code run, a planner task) brings to an attempt at it. */
export interface AttemptSpec<Result> {
  kind: 'run' | 'task';
  /** Model replies the attempt answers from the store (a task's), for its `started` event. */
  modelReplies: number;
  /** Executes it; `report` appends an event in order, `priorLogs` are the log lines earlier attempts wrote. */
  perform(context: { signal: AbortSignal; priorLogs: number; report: (event: DurableRunEvent) => void }): Promise<Result>;
  /** Its result once the journal had its say (a replay that diverged, an unknown outcome), redacted. */
  settle(result: Result, journal: RunJournal): Result;
  /** How the worker's notice says it ended. */
  outcome(result: Result): string;
}

/**
 * One attempt at a run or a planner task, whatever it executes: its journal (and the approvals its
 * calls ask for), its `started` event, its events in order, its end. A worker stopping records no
 * end: once its lock is free, another worker takes the run over.
 */
export async function runAttempt<Result extends RunResult | TaskResult>(
  state: WorkerState,
  id: string,
  spec: AttemptSpec<Result>,
): Promise<Result> {
  const { pool, executorId, notice } = state;
  const writer = state.storeWriter;
  const controller = new AbortController();
  // Earlier attempts, the journal and this attempt's `started` event: one statement (made as the run
  // was claimed, when this worker claimed it directly).
  const prior = await attemptStart(state, id, spec.modelReplies);
  const journal = journalOf(
    pool,
    {
      runId: id,
      executorId,
      isIdempotent: (call) => state.isIdempotent(call),
      onFatal: () => controller.abort(),
      stopping: () => state.closing,
    },
    prior.journal,
  );
  // Every event of the attempt goes through one chain: an insert whose `seq` was taken before a later
  // one's but that commits after it would be skipped for good by a follower reading `seq > last seen`.
  let events: Promise<void> = Promise.resolve();
  const append = (event: DurableRunEvent): Promise<void> => {
    const appended = events.then(() => appendRunEvent(writer, id, event));
    events = appended.catch(() => undefined);
    return appended;
  };
  // Whether this attempt asked for an approval: only then, or after an earlier attempt (which may have
  // left one pending), can the run have pending approvals to close at its end.
  let askedApproval = false;
  const counter = createCallCounter();
  const countApproval: typeof counter = (...args) => {
    askedApproval = true;
    return counter(...args);
  };
  state.runs.set(id, { id, journal, countApproval, append });
  try {
    notice(
      prior.attempts === 0
        ? `${spec.kind} ${id}: started`
        : `${spec.kind} ${id}: taken over (attempt ${prior.attempts + 1}, ${spec.modelReplies} model replies and ${journal.replayed} calls journaled)`,
    );
    const report = (event: DurableRunEvent): void => void append(event).catch(() => undefined);
    const performed = await spec.perform({ signal: controller.signal, priorLogs: prior.logs, report });
    await events;
    // Every journal row is committed before the end is recorded (a failed write is the journal's `fatal`, settled below).
    await journal.flush().catch(() => undefined);
    // A worker stopping (Ctrl-C) ends its runs' programs: that is not their outcome.
    if (state.closing) return await new Promise<never>(() => undefined);
    const result = spec.settle(performed, journal);
    if (askedApproval || prior.attempts > 0) await closeRunApprovals(pool, id);
    await appendRunEvent(writer, id, { kind: 'end', result: result as unknown as Record<string, unknown> });
    notice(`${spec.kind} ${id}: ${spec.outcome(result)}`);
    return result;
  } finally {
    state.runs.delete(id);
  }
}

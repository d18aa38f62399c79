import { prepared, RUN_EVENTS_CHANNEL, RUN_WORKFLOW, SCHEMA, type StoreWriter } from '../store/internals.js';
import type { ClaimedRun } from './direct-claim.js';
import { JOURNAL_COLUMNS, type JournalRow } from './run-journal.js';
import type { WorkerState } from './worker-state.js';

/** What an attempt starts from: earlier attempts (how many, how many log lines they wrote) and the run's journal. */
export interface AttemptStart {
  attempts: number;
  logs: number;
  journal: JournalRow[];
}

/**
 * One statement, one round trip: counts the run's earlier attempts and their log lines, reads its call
 * journal, and appends this attempt's `started` event (attempt number, calls and model replies the
 * journal answers) with its notification — what took three round trips before.
 */
const START_SQL = prepared(`WITH prior AS (
    SELECT count(*) FILTER (WHERE kind = 'started') AS attempts, count(*) FILTER (WHERE kind = 'log') AS logs
    FROM ${SCHEMA}.run_events WHERE run_id = $1),
  journal AS (SELECT ${JOURNAL_COLUMNS} FROM ${SCHEMA}.call_journal WHERE run_id = $1),
  added AS (
    INSERT INTO ${SCHEMA}.run_events (run_id, kind, data)
    SELECT $1, 'started', json_build_object('executorId', $2::text, 'attempt', prior.attempts + 1,
      'replayedCalls', (SELECT count(*) FROM journal WHERE status = 'finished') + $3::int)::text
    FROM prior RETURNING run_id),
  notified AS (SELECT pg_notify($4, run_id) FROM added)
  SELECT prior.attempts, prior.logs, (SELECT count(*) FROM notified) AS notified, journal.*
  FROM prior LEFT JOIN journal ON true`);

type StartRow = { attempts: string; logs: string; notified: string } & { [Column in keyof JournalRow]: JournalRow[Column] | null };

/** Starts an attempt at run `runId` by `executorId` (its id passes the writer's redactor, as every event's content does). */
export async function startAttempt(writer: StoreWriter, runId: string, executorId: string, modelReplies: number): Promise<AttemptStart> {
  const { rows } = await writer.write<StartRow>(START_SQL, [runId, { text: executorId }, modelReplies, RUN_EVENTS_CHANNEL]);
  const first = rows[0];
  return {
    attempts: Number(first?.attempts ?? 0),
    logs: Number(first?.logs ?? 0),
    // A run with no journal yet gives one row of nulls (the left join).
    journal: rows.filter((row): row is StartRow & JournalRow => row.call_key !== null),
  };
}

/** How long a start made as its run was claimed waits for the run's attempt (a claimed run DBOS did not start never takes it). */
const AHEAD_MS = 30_000;

/**
 * Starts the attempts at the code runs a claim of this worker just took for the first time, while DBOS
 * sets out to run them (their workflow context, their deserialized input): each attempt takes its start
 * (`attemptStart`) instead of making its own once it runs. Not a task's (its start counts the model
 * replies its journal holds, read as the task starts), nor a run claimed again (DBOS may refuse it for
 * too many attempts; it starts from its journal).
 */
export function startAhead(state: WorkerState, runs: readonly ClaimedRun[]): void {
  for (const run of runs) {
    if (run.workflowName !== RUN_WORKFLOW || run.claims !== 1) continue;
    const start = startAttempt(state.storeWriter, run.id, state.executorId, 0);
    // A start no attempt takes (the worker stopped before DBOS ran the run) fails for no one.
    start.catch(() => undefined);
    state.startsAhead.set(run.id, start);
    setTimeout(() => {
      if (state.startsAhead.get(run.id) === start) state.startsAhead.delete(run.id);
    }, AHEAD_MS).unref();
  }
}

/** The attempt's start: the one made as its run was claimed (a code run's), else one made now. */
export function attemptStart(state: WorkerState, runId: string, modelReplies: number): Promise<AttemptStart> {
  const ahead = state.startsAhead.get(runId);
  if (ahead !== undefined && modelReplies === 0) {
    state.startsAhead.delete(runId);
    return ahead;
  }
  return startAttempt(state.storeWriter, runId, state.executorId, modelReplies);
}

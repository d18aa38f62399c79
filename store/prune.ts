import type { GetWorkflowsInput, WorkflowStatus } from '@dbos-inc/dbos-sdk';
import { pruneAgentRecords } from './prune-agent-records.js';
import { createStoredSessionState } from './session-state.js';
import { LIVENESS_LOCK_SPACE, SCHEMA, type Pool } from './store.js';
import { RUN_WORKFLOW, TASK_WORKFLOW } from './workflow-names.js';

/** What pruning needs of DBOS: `DBOS` itself in a worker, a `DBOSClient` elsewhere. */
export interface DbosWorkflows {
  listWorkflows(input: GetWorkflowsInput): Promise<WorkflowStatus[]>;
  deleteWorkflows(workflowIDs: string[]): Promise<void>;
}

/** What one prune deleted. */
export interface PruneReport {
  /** Finished runs and tasks whose rows went. */
  runs: number;
  events: number;
  calls: number;
  approvals: number;
  modelReplies: number;
  /** A2A tasks that ended and execute_agent sessions idle since before the cutoff (store/prune-agent-records.ts). */
  a2aTasks: number;
  agentSessions: number;
  /** Keys of session state (`@capabilities/session`) that had expired, whenever they were set. */
  sessionKeys: number;
}

/** Second key of the advisory lock one pruning worker holds (first: the store's lock space + 2). */
const PRUNE_LOCK = [LIVENESS_LOCK_SPACE + 2, 0] as const;
/** Runs deleted per round: each round is one short transaction, so workers' writes do not wait long. */
const BATCH = 500;
const FINISHED = ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'] as const;
const UNFINISHED = ['PENDING', 'ENQUEUED', 'DELAYED'] as const;

/**
 * Deletes the rows of runs and tasks that finished before `cutoff`: their events, call journal,
 * decided approvals and model replies (ours), and their workflow rows (DBOS's, through its API).
 * A run DBOS still has as unfinished keeps everything (a worker may replay it), and a pending
 * approval is never deleted.
 */
export async function pruneFinishedRuns(
  pool: Pool,
  dbos: DbosWorkflows,
  cutoff: Date,
): Promise<Omit<PruneReport, 'a2aTasks' | 'agentSessions' | 'sessionKeys'>> {
  const total = { runs: 0, events: 0, calls: 0, approvals: 0, modelReplies: 0 };
  const tried = new Set<string>();
  for (;;) {
    // Runs looked at already (kept: DBOS still has them as unfinished) are left out of the query itself,
    // so a batch full of them does not end the round before the finished runs after them.
    const ids = (await finishedBefore(pool, dbos, cutoff, BATCH, [...tried])).filter((id) => !tried.has(id));
    if (ids.length === 0) return total;
    for (const id of ids) tried.add(id);
    const unfinished = new Set(
      (await dbos.listWorkflows({ workflowIDs: ids, status: [...UNFINISHED], loadInput: false, loadOutput: false })).map(
        (status) => status.workflowID,
      ),
    );
    const finished = ids.filter((id) => !unfinished.has(id));
    if (finished.length === 0) continue;
    const deleted = await deleteOurRows(pool, finished);
    await dbos.deleteWorkflows(finished);
    total.runs += finished.length;
    total.events += deleted.events;
    total.calls += deleted.calls;
    total.approvals += deleted.approvals;
    total.modelReplies += deleted.modelReplies;
  }
}

/**
 * `pruneFinishedRuns`, and agents' finished records (`pruneAgentRecords`), by one worker at a time (an advisory lock); `undefined` when another is
 * pruning right now.
 */
export async function pruneOnce(pool: Pool, dbos: DbosWorkflows, cutoff: Date): Promise<PruneReport | undefined> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [...PRUNE_LOCK]);
    if (rows[0]?.locked !== true) return undefined;
    try {
      const runs = await pruneFinishedRuns(pool, dbos, cutoff);
      return {
        ...runs,
        ...(await pruneAgentRecords(pool, cutoff)),
        sessionKeys: await createStoredSessionState(pool, '').prune(Date.now()),
      };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [...PRUNE_LOCK]);
    }
  } finally {
    client.release();
  }
}

/**
 * Ids of runs that ended before the cutoff: by our `end` event, or by DBOS's completion time (a
 * workflow that failed in DBOS itself wrote no `end` event).
 */
async function finishedBefore(pool: Pool, dbos: DbosWorkflows, cutoff: Date, limit: number, skip: string[]): Promise<string[]> {
  const { rows } = await pool.query<{ run_id: string }>(
    `SELECT DISTINCT run_id FROM ${SCHEMA}.run_events WHERE kind = 'end' AND created_at < $1 AND NOT (run_id = ANY($3::text[])) LIMIT $2`,
    [cutoff, limit, skip],
  );
  const ended = await dbos.listWorkflows({
    workflowName: [RUN_WORKFLOW, TASK_WORKFLOW],
    status: [...FINISHED],
    completedBefore: cutoff.toISOString(),
    limit,
    loadInput: false,
    loadOutput: false,
  });
  return [...new Set([...rows.map((row) => row.run_id), ...ended.map((status) => status.workflowID)])];
}

/** Our rows of finished runs, in one transaction; pending approvals stay whatever happens. */
async function deleteOurRows(
  pool: Pool,
  runIds: string[],
): Promise<{ events: number; calls: number; approvals: number; modelReplies: number }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const events = await client.query(`DELETE FROM ${SCHEMA}.run_events WHERE run_id = ANY($1)`, [runIds]);
    const calls = await client.query(`DELETE FROM ${SCHEMA}.call_journal WHERE run_id = ANY($1)`, [runIds]);
    const approvals = await client.query(`DELETE FROM ${SCHEMA}.approvals WHERE run_id = ANY($1) AND status <> 'pending'`, [runIds]);
    const replies = await client.query(`DELETE FROM ${SCHEMA}.model_journal WHERE task_id = ANY($1)`, [runIds]);
    await client.query('COMMIT');
    return {
      events: events.rowCount ?? 0,
      calls: calls.rowCount ?? 0,
      approvals: approvals.rowCount ?? 0,
      modelReplies: replies.rowCount ?? 0,
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

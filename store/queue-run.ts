import { errorMessage } from '../core/index.js';
import { PROBE_WORKERS } from './liveness.js';
import { prepared, type Pool } from './store.js';
import { APPLICATION_NAME, RUN_QUEUE } from './workflow-names.js';

const ENQUEUE = `dbos.enqueue_workflow(workflow_name => $1, queue_name => $2, positional_args => ARRAY[$3::json],
    workflow_id => $4, application_name => $5)`;
const EXISTING = '(SELECT name FROM dbos.workflow_status WHERE workflow_uuid = $4) AS existing';
const QUEUE_SQL = prepared(`SELECT ${ENQUEUE} AS queued, 1 AS alive, ${EXISTING}`);
const QUEUE_IF_LIVE_SQL = prepared(`WITH ${PROBE_WORKERS}
  SELECT CASE WHEN live.alive > 0 THEN ${ENQUEUE} END AS queued, live.alive, ${EXISTING}
    FROM (SELECT count(*) FILTER (WHERE alive)::int AS alive FROM probed) AS live`);

/** What queueing a run did: queued it (or found it queued already under its id), or refused it for want of a live worker. */
export type Queued = { queued: true } | { queued: false; liveWorkers: 0 };

/**
 * Queues a run of `workflowName` with `request` as its one argument, in one statement: DBOS's own
 * `enqueue_workflow` (its SQL interface for queueing from outside a DBOS process: the status row and
 * the input row, in DBOS's portable JSON), where DBOS's client takes a four-statement transaction.
 * With `onlyWithLiveWorker`, the same statement first looks for a live worker and queues nothing
 * when there is none. An id in use already is left as it is (its submitter attaches to that run),
 * unless it names another kind of workflow (told by the row as it was when the statement began: an id
 * queued for another kind in a transaction that commits while this statement runs is not caught).
 */
export async function queueRun(
  pool: Pool,
  run: { workflowName: string; runId: string; request: object; onlyWithLiveWorker?: boolean },
): Promise<Queued> {
  // `existing`: the run's row as it was before this statement (whose snapshot does not see what the function writes).
  const { rows } = await pool.query<{ queued: string | null; existing: string | null; alive: number }>({
    ...(run.onlyWithLiveWorker === true ? QUEUE_IF_LIVE_SQL : QUEUE_SQL),
    values: [run.workflowName, RUN_QUEUE, JSON.stringify(run.request), run.runId, APPLICATION_NAME],
  });
  const row = rows[0];
  if (row?.queued === null || row?.queued === undefined) return { queued: false, liveWorkers: 0 };
  if (row.existing !== null && row.existing !== run.workflowName)
    throw new Error(`the id ${run.runId} is in use in the store by a workflow of another kind (${row.existing}, not ${run.workflowName})`);
  return { queued: true };
}

/**
 * The message of a queued run's failure as DBOS's client reads it back: for a run queued in DBOS's
 * portable JSON (every run `queueRun` queues), the client cannot revive the stored error and hands over
 * its JSON text (`{"name":…,"message":…}`) as the message; this is the message in it.
 */
export function workflowErrorMessage(error: unknown): string {
  const message = errorMessage(error);
  if (!message.startsWith('{')) return message;
  try {
    const stored = JSON.parse(message) as { message?: unknown };
    return typeof stored.message === 'string' ? stored.message : message;
  } catch {
    return message;
  }
}

import { PROBED_WORKERS } from './liveness.js';
import type { Pool } from './store.js';
import { APPLICATION_NAME, RUN_QUEUE } from './workflow-names.js';

/** What queueing a run did: queued it (or found it queued already under its id), or refused it for want of a live worker. */
export type Queued = { queued: true } | { queued: false; liveWorkers: 0 };

/**
 * Queues a run of `workflowName` with `request` as its one argument, in one statement: DBOS's own
 * `enqueue_workflow` (its SQL interface for queueing from outside a DBOS process: the status row and
 * the input row, in DBOS's portable JSON), where DBOS's client takes a four-statement transaction.
 * With `onlyWithLiveWorker`, the same statement first looks for a live worker and queues nothing
 * when there is none. An id in use already is left as it is (its submitter attaches to that run),
 * unless it names another kind of workflow.
 */
export async function queueRun(
  pool: Pool,
  run: { workflowName: string; runId: string; request: object; onlyWithLiveWorker?: boolean },
): Promise<Queued> {
  const enqueue = `dbos.enqueue_workflow(workflow_name => $1, queue_name => $2, positional_args => ARRAY[$3::json],
      workflow_id => $4, application_name => $5)`;
  // `existing`: the run's row as it was before this statement (whose snapshot does not see what the function writes).
  const { rows } = await pool.query<{ queued: string | null; existing: string | null; alive: number }>(
    run.onlyWithLiveWorker === true
      ? `SELECT CASE WHEN live.alive > 0 THEN ${enqueue} END AS queued, live.alive,
                (SELECT name FROM dbos.workflow_status WHERE workflow_uuid = $4) AS existing
           FROM (SELECT count(*) FILTER (WHERE alive)::int AS alive FROM (${PROBED_WORKERS}) AS probed) AS live`
      : `SELECT ${enqueue} AS queued, 1 AS alive, (SELECT name FROM dbos.workflow_status WHERE workflow_uuid = $4) AS existing`,
    [run.workflowName, RUN_QUEUE, JSON.stringify(run.request), run.runId, APPLICATION_NAME],
  );
  const row = rows[0];
  if (row?.queued === null || row?.queued === undefined) return { queued: false, liveWorkers: 0 };
  if (row.existing !== null && row.existing !== run.workflowName)
    throw new Error(`the id ${run.runId} is in use in the store by a workflow of another kind (${row.existing}, not ${run.workflowName})`);
  return { queued: true };
}

// Taking a notified run at once, in one statement, instead of through a poll of DBOS's queue.
//
// A submitter NOTIFYs the run queue channel with its run's id after enqueueing it. DBOS's queue runner
// takes queued runs by polling: one transaction of five round trips (BEGIN, the latest application
// version, the queue's SELECT … FOR UPDATE, the UPDATE that claims, COMMIT) — most of the time a short
// run waits in the store (bench/durable-trace.ts). A worker with a free slot that hears of a run
// claims that row itself instead: one UPDATE of the same columns DBOS's claim writes, under DBOS's
// conditions (still ENQUEUED on this queue, this application's, and of this version — or unversioned
// while this version is the latest), and hands it to DBOS's own dispatch of dequeued workflows, as a
// poll would. Workers racing for one run are decided by the row: the UPDATE flips ENQUEUED once.
//
// The claim takes the queue's lane in the runner (the map of polls in flight), so no poll of the queue
// runs beside it and this worker's concurrency (counted by DBOS from the workflows it runs) holds.
import { randomUUID } from 'node:crypto';

/** The queue settings a claim reads (DBOS's registered queue). */
export interface ClaimedQueue {
  name: string;
  workerConcurrency?: number;
  concurrency?: number;
  rateLimit?: unknown;
  partitionConcurrency?: number;
  partitionWorkerConcurrency?: number;
  partitionRateLimit?: unknown;
}

/** The parts of DBOS's executor and system database a claim uses (present in @dbos-inc/dbos-sdk 5.3). */
export interface ClaimingExecutor {
  executorID: string;
  systemDatabase: {
    schemaName: string;
    appName?: string;
    pool: { query(text: string, values: unknown[]): Promise<{ rows: { workflow_uuid: string }[] }> };
    appNameFilter(column: string, value: unknown, params: unknown[]): string;
    countRunningWorkflowsForQueue(queueName: string): number;
  };
  dispatchDequeuedWorkflows(workflowIDs: string[], ownerXid: string): Promise<void>;
}

/** Whether `exec` has what a direct claim needs (another DBOS may not: the worker then only polls). */
export function canClaimDirectly(exec: unknown): exec is ClaimingExecutor {
  const candidate = exec as Partial<ClaimingExecutor> | undefined;
  const sysdb = candidate?.systemDatabase;
  return (
    typeof candidate?.executorID === 'string' &&
    typeof candidate.dispatchDequeuedWorkflows === 'function' &&
    sysdb !== undefined &&
    typeof sysdb.schemaName === 'string' &&
    typeof sysdb.appNameFilter === 'function' &&
    typeof sysdb.countRunningWorkflowsForQueue === 'function' &&
    typeof sysdb.pool?.query === 'function'
  );
}

/**
 * Whether `queue` is one a single-row claim may take from: only a per-worker limit, which the caller
 * checks against the runs this worker has. A limit shared with other workers (global concurrency, a
 * rate) or partitions needs DBOS's own transaction.
 */
export function claimableQueue(queue: ClaimedQueue): boolean {
  return [queue.concurrency, queue.rateLimit, queue.partitionConcurrency, queue.partitionWorkerConcurrency, queue.partitionRateLimit].every(
    (limit) => limit === undefined,
  );
}

/** Whether this worker has a slot for one more run of `queue`. */
export function hasFreeSlot(exec: ClaimingExecutor, queue: ClaimedQueue): boolean {
  return queue.workerConcurrency === undefined || exec.systemDatabase.countRunningWorkflowsForQueue(queue.name) < queue.workerConcurrency;
}

/**
 * Claims the run `runId` of `queue` for this worker and starts it through DBOS's dispatch; true when
 * this worker took it, false when the row was not there to take (another worker took it, it ended, it
 * is not of this version).
 */
export async function claimRun(exec: ClaimingExecutor, queue: ClaimedQueue, runId: string, appVersion: string): Promise<boolean> {
  const sysdb = exec.systemDatabase;
  const ownerXid = randomUUID();
  const params: unknown[] = [runId, queue.name, exec.executorID, appVersion, ownerXid];
  const scope = sysdb.appNameFilter('application_name', sysdb.appName, params);
  const versionScope = sysdb.appNameFilter('application_name', sysdb.appName, params);
  params.push(sysdb.appName ?? null);
  const schema = `"${sysdb.schemaName.replaceAll('"', '""')}"`;
  const now = '(EXTRACT(epoch FROM now()) * 1000)::bigint';
  const { rows } = await sysdb.pool.query(
    `UPDATE ${schema}.workflow_status
        SET status = 'PENDING',
            owner_xid = $5,
            executor_id = $3,
            application_version = $4,
            started_at_epoch_ms = ${now},
            rate_limited = FALSE,
            application_name = COALESCE(application_name, $${params.length}),
            recovery_attempts = recovery_attempts + 1,
            updated_at = ${now},
            workflow_deadline_epoch_ms = CASE
              WHEN workflow_timeout_ms IS NOT NULL AND workflow_deadline_epoch_ms IS NULL THEN ${now} + workflow_timeout_ms
              ELSE workflow_deadline_epoch_ms
            END
      WHERE workflow_uuid = $1
        AND status = 'ENQUEUED'
        AND queue_name = $2
        AND queue_partition_key IS NULL
        AND ${scope}
        AND (application_version = $4
             OR (application_version IS NULL
                 AND COALESCE((SELECT version_name FROM ${schema}.application_versions
                                WHERE ${versionScope}
                                ORDER BY version_timestamp DESC LIMIT 1), $4) = $4))
      RETURNING workflow_uuid`,
    params,
  );
  if (rows.length === 0) return false;
  await exec.dispatchDequeuedWorkflows([runId], ownerXid);
  return true;
}

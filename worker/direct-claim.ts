// Taking queued runs at once, in one statement, instead of through a poll of DBOS's queue.
//
// A queued run's row notifies the run queue channel as it commits (store/dbos-schema.ts). DBOS's queue
// runner takes queued runs by polling: one transaction of five round trips (BEGIN, the latest
// application version, the queue's SELECT … FOR UPDATE SKIP LOCKED, the UPDATE that claims, COMMIT) —
// most of the time a short run waited in the store (bench/durable-trace.ts). A worker with a free slot
// that hears of a run claims the queue's next runs itself instead: one UPDATE of the same columns DBOS's
// claim writes, of the rows its SELECT would take (ENQUEUED on this queue, this application's, of this
// version — or unversioned while this version is the latest — in priority and age order, rows locked by
// another claim skipped), handed to DBOS's own dispatch of dequeued workflows, as a poll would. Workers
// racing for a run are decided by the row: the UPDATE flips ENQUEUED once.
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

/** How many more runs of the queue `queueName` this worker, which runs `concurrency` at once, may start now. */
export function roomFor(exec: ClaimingExecutor, queueName: string, concurrency: number): number {
  return concurrency - exec.systemDatabase.countRunningWorkflowsForQueue(queueName);
}

/**
 * Claims up to `room` queued runs of `queue` for this worker — the first in the queue's order (priority,
 * then age), as DBOS's poll takes them, skipping rows another claim holds — and starts them through
 * DBOS's dispatch; returns their ids. Stops before starting them if `signal` aborted meanwhile (DBOS
 * shuts down: the runs stay claimed, and another worker takes them over once this one is gone).
 */
export async function claimNext(
  exec: ClaimingExecutor,
  queue: ClaimedQueue,
  room: number,
  appVersion: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const sysdb = exec.systemDatabase;
  const ownerXid = randomUUID();
  const params: unknown[] = [queue.name, exec.executorID, appVersion, ownerXid, Math.max(0, Math.floor(room))];
  const scope = sysdb.appNameFilter('application_name', sysdb.appName, params);
  const versionScope = sysdb.appNameFilter('application_name', sysdb.appName, params);
  params.push(sysdb.appName ?? null);
  const schema = `"${sysdb.schemaName.replaceAll('"', '""')}"`;
  const now = '(EXTRACT(epoch FROM now()) * 1000)::bigint';
  const { rows } = await sysdb.pool.query(
    // The rows are chosen once (a CTE that locks is computed once, before the UPDATE): a subquery in the
    // UPDATE's WHERE could be run again per row, and take more than its LIMIT.
    `WITH next AS MATERIALIZED (
       SELECT workflow_uuid FROM ${schema}.workflow_status
        WHERE status = 'ENQUEUED'
          AND queue_name = $1
          AND queue_partition_key IS NULL
          AND ${scope}
          AND (application_version = $3
               OR (application_version IS NULL
                   AND COALESCE((SELECT version_name FROM ${schema}.application_versions
                                  WHERE ${versionScope}
                                  ORDER BY version_timestamp DESC LIMIT 1), $3) = $3))
        ORDER BY priority ASC, created_at ASC
        LIMIT $5
        FOR UPDATE SKIP LOCKED)
     UPDATE ${schema}.workflow_status AS claimed
        SET status = 'PENDING',
            owner_xid = $4,
            executor_id = $2,
            application_version = $3,
            started_at_epoch_ms = ${now},
            rate_limited = FALSE,
            application_name = COALESCE(claimed.application_name, $${params.length}),
            recovery_attempts = claimed.recovery_attempts + 1,
            updated_at = ${now},
            workflow_deadline_epoch_ms = CASE
              WHEN claimed.workflow_timeout_ms IS NOT NULL AND claimed.workflow_deadline_epoch_ms IS NULL THEN ${now} + claimed.workflow_timeout_ms
              ELSE claimed.workflow_deadline_epoch_ms
            END
       FROM next
      WHERE claimed.workflow_uuid = next.workflow_uuid AND claimed.status = 'ENQUEUED'
      RETURNING claimed.workflow_uuid`,
    params,
  );
  const claimed = rows.map((row) => row.workflow_uuid);
  if (claimed.length === 0) return claimed;
  if (signal?.aborted) throw new Error(`the worker stops: ${claimed.join(', ')} stay claimed, for another worker to take over`);
  await exec.dispatchDequeuedWorkflows(claimed, ownerXid);
  return claimed;
}

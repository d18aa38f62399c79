// Taking queued runs at once, in one statement, instead of through a poll of DBOS's queue.
//
// A queued run's row notifies the run queue channel as it commits (store/dbos-schema.ts). DBOS's queue
// runner takes queued runs by polling: one transaction of five round trips (BEGIN, the latest
// application version, the queue's SELECT … FOR UPDATE SKIP LOCKED, the UPDATE that claims, COMMIT) —
// most of the time a short run waited in the store (bench/durable-trace.ts). A worker with a free slot
// that hears of a run claims the queue's next runs itself instead: one UPDATE of the same columns DBOS's
// claim writes, of the rows its SELECT would take (ENQUEUED on this queue, this application's, of this
// version — or unversioned while this version is the latest — in priority and age order, rows locked by
// another claim skipped), whose RETURNING (with the run's input) is handed to DBOS's executor as the
// dequeued workflows' statuses — DBOS's own dispatch reads the rows again first. Workers racing for a run
// are decided by the row: the UPDATE flips ENQUEUED once.
//
// The claim takes the queue's lane in the runner (the map of polls in flight), so no poll of the queue
// runs beside it and this worker's concurrency (counted by DBOS from the workflows it runs) holds.
import { randomUUID } from 'node:crypto';
import type { WorkflowStatusInternal } from '@dbos-inc/dbos-sdk/internal/system_database';
import { prepared } from '../store/internals.js';

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

/** A run a claim took: its id, the workflow that runs it, how many times it was claimed (this claim included). */
export interface ClaimedRun {
  id: string;
  workflowName: string;
  claims: number;
}

/** The parts of DBOS's executor and system database a claim uses (present in @dbos-inc/dbos-sdk 5.3). */
export interface ClaimingExecutor {
  executorID: string;
  systemDatabase: {
    schemaName: string;
    appName?: string;
    pool: { query(statement: { name: string; text: string; values: unknown[] }): Promise<{ rows: ClaimedRow[] }> };
    appNameFilter(column: string, value: unknown, params: unknown[]): string;
    countRunningWorkflowsForQueue(queueName: string): number;
  };
  executeDequeuedWorkflow(status: WorkflowStatusInternal, ownerXid: string): Promise<unknown>;
  logger: { warn(message: string): void };
}

/** Whether `exec` has what a direct claim needs (another DBOS may not: the worker then only polls). */
export function canClaimDirectly(exec: unknown): exec is ClaimingExecutor {
  const candidate = exec as Partial<ClaimingExecutor> | undefined;
  const sysdb = candidate?.systemDatabase;
  return (
    typeof candidate?.executorID === 'string' &&
    typeof candidate.executeDequeuedWorkflow === 'function' &&
    typeof candidate.logger?.warn === 'function' &&
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
 * DBOS's executor, in that order; returns their ids. Stops before starting them if `signal` aborted
 * meanwhile (DBOS shuts down: the runs stay claimed, and another worker takes them over once this one
 * is gone). `onClaimed` hears of the claimed runs as the claim commits, before DBOS starts them.
 */
export async function claimNext(
  exec: ClaimingExecutor,
  queue: ClaimedQueue,
  room: number,
  appVersion: string,
  signal?: AbortSignal,
  onClaimed?: (runs: readonly ClaimedRun[]) => void,
): Promise<string[]> {
  const sysdb = exec.systemDatabase;
  const ownerXid = randomUUID();
  const params: unknown[] = [queue.name, exec.executorID, appVersion, ownerXid, Math.max(0, Math.floor(room))];
  const scope = sysdb.appNameFilter('application_name', sysdb.appName, params);
  const versionScope = sysdb.appNameFilter('application_name', sysdb.appName, params);
  params.push(sysdb.appName ?? null);
  const schema = `"${sysdb.schemaName.replaceAll('"', '""')}"`;
  const now = '(EXTRACT(epoch FROM now()) * 1000)::bigint';
  // Prepared (its text is the same at every claim of this process): its planning cost as much as its round trip.
  const { rows } = await sysdb.pool.query({
    // The rows are chosen once (a CTE that locks is computed once, before the UPDATE): a subquery in the
    // UPDATE's WHERE could be run again per row, and take more than its LIMIT.
    ...prepared(`WITH next AS MATERIALIZED (
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
       FROM next LEFT JOIN ${schema}.workflow_input AS input ON input.workflow_uuid = next.workflow_uuid
      WHERE claimed.workflow_uuid = next.workflow_uuid AND claimed.status = 'ENQUEUED'
      RETURNING ${CLAIMED_RETURNING}, input.inputs AS claimed_input`),
    values: params,
  });
  // In the queue's order, as DBOS's poll dispatches them.
  rows.sort((a, b) => Number(a.priority ?? 0) - Number(b.priority ?? 0) || Number(a.created_at) - Number(b.created_at));
  const claimed = rows.map((row) => row.workflow_uuid);
  if (claimed.length === 0) return claimed;
  if (signal?.aborted) throw new Error(`the worker stops: ${claimed.join(', ')} stay claimed, for another worker to take over`);
  try {
    onClaimed?.(rows.map((row) => ({ id: row.workflow_uuid, workflowName: row.name, claims: Number(row.recovery_attempts) })));
  } catch (error) {
    // Never keeps the claimed runs from starting: they would stay claimed by a live worker that runs none of them.
    exec.logger.warn(`A claim's hook failed: ${(error as Error).message}`);
  }
  // What DBOS's dispatch of dequeued workflows does, from the rows the claim returned (it reads them again).
  for (const row of rows) {
    try {
      await exec.executeDequeuedWorkflow(dequeuedStatus(row), ownerXid);
    } catch (error) {
      exec.logger.warn(`Could not execute workflow with id ${row.workflow_uuid}: ${(error as Error).message}`);
    }
  }
  return claimed;
}

/** The columns of DBOS's `workflow_status` a claim returns (listed: a prepared `*` would break when DBOS adds one). */
const CLAIMED_COLUMNS = [
  'workflow_uuid',
  'status',
  'name',
  'class_name',
  'config_name',
  'queue_name',
  'authenticated_user',
  'assumed_role',
  'authenticated_roles',
  'executor_id',
  'created_at',
  'updated_at',
  'application_version',
  'application_id',
  'recovery_attempts',
  'inputs',
  'workflow_timeout_ms',
  'workflow_deadline_epoch_ms',
  'deduplication_id',
  'priority',
  'queue_partition_key',
  'started_at_epoch_ms',
  'forked_from',
  'was_forked_from',
  'parent_workflow_id',
  'serialization',
  'delay_until_epoch_ms',
  'completed_at',
  'attributes',
  'schedule_name',
  'debounce_deadline_epoch_ms',
  'is_debounced',
  'application_name',
] as const satisfies readonly (keyof ClaimedRow)[];
/** Every column of `ClaimedRow` is in the list (a field added to one and not the other fails the build). */
const EVERY_COLUMN_LISTED: Exclude<keyof ClaimedRow, (typeof CLAIMED_COLUMNS)[number] | 'claimed_input'> extends never ? true : never =
  true;
void EVERY_COLUMN_LISTED;

const CLAIMED_RETURNING = CLAIMED_COLUMNS.map((column) => `claimed.${column}`).join(', ');

/** A claimed row of DBOS's `workflow_status` (its columns, as pg returns them) and its input. */
export interface ClaimedRow {
  workflow_uuid: string;
  status: string;
  name: string;
  class_name: string | null;
  config_name: string | null;
  queue_name: string | null;
  authenticated_user: string;
  assumed_role: string;
  authenticated_roles: string | null;
  executor_id: string;
  created_at: string | number;
  updated_at: string | number;
  application_version: string | null;
  application_id: string;
  recovery_attempts: string | number;
  /** The input's row (workflow_input), else the legacy column of the status row. */
  claimed_input: string | null;
  inputs: string | null;
  workflow_timeout_ms: string | number | null;
  workflow_deadline_epoch_ms: string | number | null;
  deduplication_id: string | null;
  priority: number | null;
  queue_partition_key: string | null;
  started_at_epoch_ms: string | number | null;
  forked_from: string | null;
  was_forked_from: boolean | null;
  parent_workflow_id: string | null;
  serialization: string | null;
  delay_until_epoch_ms: string | number | null;
  completed_at: string | number | null;
  attributes: Record<string, unknown> | null;
  schedule_name: string | null;
  debounce_deadline_epoch_ms: string | number | null;
  is_debounced: boolean | null;
  application_name: string | null;
}

/**
 * DBOS's status of a claimed run, as its system database reads a row back (the same fields and
 * conversions, typed against DBOS's own interface: a field DBOS comes to require fails the build).
 */
export function dequeuedStatus(row: ClaimedRow): WorkflowStatusInternal {
  const number = (value: string | number | null): number | undefined => (value === null || value === '' ? undefined : Number(value));
  return {
    workflowUUID: row.workflow_uuid,
    status: row.status,
    workflowName: row.name,
    output: null,
    error: null,
    workflowClassName: row.class_name ?? '',
    workflowConfigName: row.config_name ?? '',
    ...(row.queue_name === null ? {} : { queueName: row.queue_name }),
    authenticatedUser: row.authenticated_user,
    assumedRole: row.assumed_role,
    authenticatedRoles: JSON.parse(row.authenticated_roles ?? 'null') as string[],
    executorId: row.executor_id,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    ...(row.application_version === null ? {} : { applicationVersion: row.application_version }),
    applicationID: row.application_id,
    recoveryAttempts: Number(row.recovery_attempts),
    input: row.claimed_input ?? row.inputs ?? null,
    timeoutMS: number(row.workflow_timeout_ms) || undefined,
    deadlineEpochMS: number(row.workflow_deadline_epoch_ms) || undefined,
    ...(row.deduplication_id === null ? {} : { deduplicationID: row.deduplication_id }),
    priority: row.priority ?? 0,
    ...(row.queue_partition_key === null ? {} : { queuePartitionKey: row.queue_partition_key }),
    startedAtEpochMs: number(row.started_at_epoch_ms) || undefined,
    ...(row.forked_from === null ? {} : { forkedFrom: row.forked_from }),
    wasForkedFrom: row.was_forked_from ?? false,
    ...(row.parent_workflow_id === null ? {} : { parentWorkflowID: row.parent_workflow_id }),
    serialization: row.serialization,
    delayUntilEpochMS: number(row.delay_until_epoch_ms) || undefined,
    completedAt: number(row.completed_at) || undefined,
    ...(row.attributes === null ? {} : { attributes: row.attributes }),
    ...(row.schedule_name === null ? {} : { scheduleName: row.schedule_name }),
    debounceDeadlineEpochMS: number(row.debounce_deadline_epoch_ms) || undefined,
    isDebounced: row.is_debounced ?? false,
    ...(row.application_name === null ? {} : { applicationName: row.application_name }),
  };
}

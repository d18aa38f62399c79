// Queueing a run in one statement (DBOS's own `enqueue_workflow`) and looking for live workers in one,
// against a real PostgreSQL (a private cluster): the refusal when no worker is alive, what the rows
// hold, an id queued twice, an id of another kind of workflow, and dead workers' rows.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDbosSchema } from './dbos-schema.js';
import { holdLiveness, liveWorkers } from './liveness.js';
import { queueRun } from './queue-run.js';
import { createPool, ensureStoreSchema, LIVENESS_LOCK_SPACE, SCHEMA, type Pool } from './store.js';
import { useStoreForFile } from './test-support/worker-processes.js';
import { APPLICATION_NAME, RUN_QUEUE, RUN_WORKFLOW, TASK_WORKFLOW } from './workflow-names.js';

const testStore = useStoreForFile();
let store: string;
let pool: Pool;

beforeAll(async () => {
  store = await testStore.cluster.createDatabase('queue_run');
  pool = createPool(store, 4);
  await ensureStoreSchema(store, pool);
  await migrateDbosSchema(store);
}, 120_000);

afterAll(async () => {
  await pool?.end();
});

/** A worker's row without its lock: what a worker killed with -9 leaves (its connection, and so its lock, gone). */
async function deadWorkerRow(id: string): Promise<void> {
  await pool.query(`INSERT INTO ${SCHEMA}.workers (executor_id, host, pid) VALUES ($1, 'gone', 1)`, [id]);
}

async function statusRow(runId: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await pool.query<Record<string, unknown>>(
    `SELECT s.status, s.name, s.queue_name, s.application_name, s.recovery_attempts, i.inputs
       FROM dbos.workflow_status AS s LEFT JOIN dbos.workflow_input AS i USING (workflow_uuid)
      WHERE s.workflow_uuid = $1`,
    [runId],
  );
  return rows[0];
}

describe('queueRun', () => {
  it('queues nothing when asked for a live worker and only dead ones have rows; queues once a worker holds its lock', async () => {
    await deadWorkerRow(`dead-${randomUUID()}`);
    const refused = randomUUID();
    await expect(
      queueRun(pool, { workflowName: RUN_WORKFLOW, runId: refused, request: { code: 'x' }, onlyWithLiveWorker: true }),
    ).resolves.toEqual({ queued: false, liveWorkers: 0 });
    expect(await statusRow(refused)).toBeUndefined();
    // The look removed the dead worker's row.
    expect((await pool.query(`SELECT executor_id FROM ${SCHEMA}.workers`)).rows).toEqual([]);

    const lost: Error[] = [];
    const live = await holdLiveness(store, pool, `live-${randomUUID()}`, (error) => lost.push(error));
    try {
      const runId = randomUUID();
      const request = { code: 'export default 1;', check: false, session: 'mcp:s' };
      await expect(queueRun(pool, { workflowName: RUN_WORKFLOW, runId, request, onlyWithLiveWorker: true })).resolves.toEqual({
        queued: true,
      });
      const row = await statusRow(runId);
      expect(row).toMatchObject({ status: 'ENQUEUED', name: RUN_WORKFLOW, queue_name: RUN_QUEUE, application_name: APPLICATION_NAME });
      // DBOS's portable JSON: the request is the one positional argument, as written.
      expect(JSON.parse(String(row?.['inputs']))).toEqual({ positionalArgs: [request], namedArgs: {} });
    } finally {
      await live.release();
    }
    expect(lost).toEqual([]);
  }, 60_000);

  it('leaves a run queued under the same id as it is (its submitter attaches), and refuses an id another kind of workflow holds', async () => {
    const runId = randomUUID();
    await queueRun(pool, { workflowName: RUN_WORKFLOW, runId, request: { code: 'first' } });
    await pool.query(`UPDATE dbos.workflow_status SET status = 'PENDING' WHERE workflow_uuid = $1`, [runId]);
    await expect(queueRun(pool, { workflowName: RUN_WORKFLOW, runId, request: { code: 'second' } })).resolves.toEqual({ queued: true });
    const row = await statusRow(runId);
    expect(row).toMatchObject({ status: 'PENDING', name: RUN_WORKFLOW });
    expect(JSON.parse(String(row?.['inputs']))).toEqual({ positionalArgs: [{ code: 'first' }], namedArgs: {} });

    await expect(queueRun(pool, { workflowName: TASK_WORKFLOW, runId, request: { task: 't' } })).rejects.toThrow(
      new RegExp(`${runId} is in use in the store by a workflow of another kind \\(${RUN_WORKFLOW}`),
    );
    expect(await statusRow(runId)).toMatchObject({ status: 'PENDING', name: RUN_WORKFLOW });
  }, 60_000);
});

describe('looking for live workers', () => {
  it('does not take another look, under way at the same moment, for a live worker', async () => {
    await pool.query(`DELETE FROM ${SCHEMA}.workers`);
    await deadWorkerRow('dead-looked-at');
    // Another look's statement holds the dead worker's key as a look holds it (shared, until it ends).
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(`SELECT pg_advisory_xact_lock_shared(${LIVENESS_LOCK_SPACE}, hashtext('dead-looked-at'))`);
      const runId = randomUUID();
      await expect(
        queueRun(pool, { workflowName: RUN_WORKFLOW, runId, request: { code: 'x' }, onlyWithLiveWorker: true }),
      ).resolves.toEqual({ queued: false, liveWorkers: 0 });
      expect(await statusRow(runId)).toBeUndefined();
      expect(await liveWorkers(pool)).toEqual([]);
    } finally {
      await other.query('ROLLBACK');
      other.release();
    }
  }, 60_000);
});

describe('liveWorkers', () => {
  it('names the workers holding their lock, oldest first, in one look, and removes the rows of dead ones', async () => {
    await pool.query(`DELETE FROM ${SCHEMA}.workers`);
    const first = await holdLiveness(store, pool, 'first', () => undefined);
    const second = await holdLiveness(store, pool, 'second', () => undefined);
    await deadWorkerRow('dead-a');
    await deadWorkerRow('dead-b');
    try {
      expect(await liveWorkers(pool)).toEqual(['first', 'second']);
      const { rows } = await pool.query<{ executor_id: string }>(`SELECT executor_id FROM ${SCHEMA}.workers ORDER BY executor_id`);
      expect(rows.map((row) => row.executor_id)).toEqual(['first', 'second']);
      // The look freed the dead workers' locks with its statement: a worker may start under such an id.
      const again = await holdLiveness(store, pool, 'dead-a', () => undefined);
      await again.release();
    } finally {
      await first.release();
      await second.release();
    }
    expect(await liveWorkers(pool)).toEqual([]);
  }, 60_000);
});

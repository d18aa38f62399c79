// Setting up against a store, against a real PostgreSQL (private clusters): the schema is created once
// per process (and tried again after a failure), a waiter whose LISTEN fails closes its connection,
// and a second live worker with the same id is refused with its own code and what to do.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { migrateSystemDatabase } from '@dbos-inc/dbos-sdk/internal/system_database';
import { GlobalLogger } from '@dbos-inc/dbos-sdk/internal/telemetry/logs';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { DEADLINE_REASON, requestStoredApproval } from './approval-store.js';
import { createApprovalWaiter } from './approval-waiter.js';
import { openApprovals } from './index.js';
import { migrateDbosSchema, queuedRunsNotify } from './dbos-schema.js';
import { APPROVALS_CHANNEL, createPool, LIVENESS_LOCK_SPACE, SCHEMA } from './store.js';
import { makeDurableSpace, startCli } from './test-support/durable-space.js';
import { startPostgresCluster } from './test-support/postgres-cluster.js';
import { useStoreForFile } from './test-support/worker-processes.js';
import { startWorker } from '../worker/worker.js';

const testStore = useStoreForFile();
const { workers } = testStore;

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

describe('the store schema', () => {
  it('is created once per process: a second openApprovals does not take the DDL lock again', async () => {
    const store = await testStore.cluster.createDatabase('schema_once');
    const first = await openApprovals(store);
    await first.close();
    // Another process holds the DDL lock: running the DDL again would wait for it.
    const admin = await connect(store);
    try {
      await admin.query('SELECT pg_advisory_lock($1, 0)', [LIVENESS_LOCK_SPACE + 1]);
      const again = await openApprovals(store);
      expect(await again.list()).toEqual([]);
      await again.close();
    } finally {
      await admin.end();
    }
  }, 60_000);

  it('is tried again after a failure: a store that could not be reached first works once it exists', async () => {
    const store = testStore.cluster.url.replace(/\/postgres$/, '/created_later');
    await expect(openApprovals(store)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('created_later'),
    });
    await testStore.cluster.createDatabase('created_later');
    const approvals = await openApprovals(store);
    expect(await approvals.list()).toEqual([]);
    await approvals.close();
  });
});

describe("the trigger that notifies workers of queued runs (on DBOS's table)", () => {
  it('is not waited for past its lock timeout by a start that finds the table held; that process notifies by itself, a later start adds it', async () => {
    const store = await testStore.cluster.createDatabase('trigger_held');
    const silent = { info: () => undefined, debug: () => undefined, warn: () => undefined, error: () => undefined };
    // DBOS's tables as a store made before the trigger existed, then a long write transaction on them.
    await migrateSystemDatabase(store, new GlobalLogger(undefined, { logger: silent }));
    const holder = await connect(store);
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE dbos.workflow_status IN ROW EXCLUSIVE MODE');
      await migrateDbosSchema(store);
      expect(queuedRunsNotify(store)).toBe(false);
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    // Another process (another URL of the same database: the set-up runs once per process and URL).
    const later = `${store}?application_name=later`;
    await migrateDbosSchema(later);
    expect(queuedRunsNotify(later)).toBe(true);
    const admin = await connect(store);
    try {
      const { rows } = await admin.query(
        `SELECT tgname FROM pg_trigger WHERE tgrelid = 'dbos.workflow_status'::regclass AND NOT tgisinternal`,
      );
      expect(rows.map((row: { tgname: string }) => row.tgname)).toEqual(['agent_spaces_run_queued']);
    } finally {
      await admin.end();
    }
  }, 60_000);
});

describe('an approval waiter whose LISTEN fails', () => {
  it('closes its connection (a hot standby refuses LISTEN)', async () => {
    const standby = await startPostgresCluster({ standby: true });
    const admin = await connect(standby.url);
    const pool = createPool(standby.url, 1);
    try {
      await expect(createApprovalWaiter(standby.url, pool)).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringMatching(/LISTEN during recovery/),
      });
      const others = async (): Promise<number> =>
        (
          await admin.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
          )
        ).rows[0]?.n ?? -1;
      await expect.poll(others).toBe(0);
    } finally {
      await pool.end();
      await admin.end();
      await standby.stop();
    }
  });
});

describe('an approval waiter', () => {
  /** A waiter and a pending approval (deadline `deadlineMs` by the store's row) on a database of its own. */
  async function pendingApproval(name: string, deadlineMs?: number) {
    const store = await testStore.cluster.createDatabase(name);
    await (await openApprovals(store)).close(); // the schema
    const pool = createPool(store, 2);
    const waiter = await createApprovalWaiter(store, pool);
    const stored = await requestStoredApproval(pool, {
      runId: `run-${name}`,
      callKey: 'call-1',
      capability: 'ledger',
      function: 'send',
      params: {},
      message: 'send it?',
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
    });
    expect(stored.status).toBe('pending');
    const close = async (): Promise<void> => {
      await waiter.close();
      await pool.end();
    };
    return { pool, waiter, stored, close };
  }

  // Node's timers count from the event loop's cached time (they may fire early by the wall clock), and the
  // store decides with its own clock: a waiter that looked once and gave up waited forever (a run hung).
  it('whose deadline timer fires before the store counts the deadline as passed looks again until the store denies it', async () => {
    const { waiter, stored, close } = await pendingApproval('deadline_early', 500);
    try {
      // The waiter's clock says the deadline passed 1 s ago; the store's row passes it in 0.5 s.
      const decided = await waiter.wait({ ...stored, deadline: new Date(Date.now() - 1000).toISOString() });
      expect(decided).toMatchObject({ id: stored.id, status: 'denied', reason: DEADLINE_REASON });
    } finally {
      await close();
    }
  }, 60_000);

  it('rejects a wait whose approval vanished from the store, instead of waiting forever', async () => {
    const { pool, waiter, stored, close } = await pendingApproval('approval_gone');
    try {
      // Awaited from the start: the wait may end before the notification below is sent (a check it
      // makes meanwhile finds the row gone), and a rejection nobody awaits yet is an unhandled one.
      const waited = expect(waiter.wait(stored)).rejects.toMatchObject({
        code: 'APPROVAL_NOT_FOUND',
        message: expect.stringContaining(stored.id),
      });
      await pool.query(`DELETE FROM ${SCHEMA}.approvals WHERE id = $1`, [stored.id]);
      await pool.query('SELECT pg_notify($1, $2)', [APPROVALS_CHANNEL, stored.id]);
      await waited;
    } finally {
      await close();
    }
  }, 60_000);
});

describe('a second worker with the id of a live one', () => {
  it('is refused with WORKER_ID_IN_USE and told to choose another --id or stop the other worker', async () => {
    const space = await makeDurableSpace('store-setup-id');
    const store = await testStore.cluster.createDatabase('worker_id');
    const first = workers.start(space, store, ['--id', 'shared-id']);
    await workers.ready(first);

    const second = workers.start(space, store, ['--id', 'shared-id']);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain('another live worker already uses the id "shared-id"');
    expect(second.stderr()).toContain('another --id, or stop the other worker');

    const config = resolveConfig({}, { root: await makeTempDir('store-setup-id') });
    const inProcess = startWorker({
      store,
      config,
      executorId: 'shared-id',
      openSpace: () => Promise.reject(new Error('not reached: the id is refused first')),
    });
    await expect(inProcess).rejects.toMatchObject({ code: 'WORKER_ID_IN_USE' });

    // The first worker is untouched: it still holds its id.
    expect(first.child.exitCode).toBeNull();
  }, 300_000);
});

describe('run --store --approve', () => {
  it("decides its own run's approvals from the submitter, and says so", async () => {
    const space = await makeDurableSpace('store-setup-approve');
    const store = await testStore.cluster.createDatabase('approve_from_submitter');
    await writeFile(
      path.join(space.root, 'send.ts'),
      `import { ledger } from '@capabilities/ledger';\nawait ledger.send({ item: 'parcel' });\nexport default 'sent';\n`,
    );
    const worker = workers.start(space, store);
    await workers.ready(worker);
    const submitter = workers.track(
      startCli(['run', 'send.ts', '--store', store, '--approve', 'all'], { cwd: space.root, env: space.env }),
    );
    expect(await submitter.exited).toBe(0);
    expect(submitter.stderr()).toMatch(/\[approval\] [0-9a-f]+: approved \(approved by --approve all\)/);
    expect(submitter.stdout()).toContain('sent');
    expect(space.effects()).toEqual(['send parcel']);
  }, 300_000);
});

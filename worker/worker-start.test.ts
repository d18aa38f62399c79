// A worker whose start fails half-way (here: its space cannot open) closes what it opened: its
// liveness lock is free again, so the same executor id can start once the fault is fixed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { holdLiveness } from '../store/liveness.js';
import { createPool, LIVENESS_LOCK_SPACE } from '../store/store.js';
import { startPostgresCluster, type PostgresCluster } from '../store/test-support/postgres-cluster.js';
import { startWorker } from './worker.js';

let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('a worker whose start fails', () => {
  it('releases its liveness lock, so the same id may start again', async () => {
    const store = await cluster.createDatabase('worker_start');
    const config = resolveConfig({}, { root: await makeTempDir('worker-start') });
    const broken = { store, config, executorId: 'worker-start-1', openSpace: () => Promise.reject(new Error('the space cannot open')) };
    await expect(startWorker(broken)).rejects.toThrow('the space cannot open');
    // Still held, the lock would make this start fail with "another live worker already uses the id".
    await expect(startWorker(broken)).rejects.toThrow('the space cannot open');
  }, 120_000);

  it('frees the liveness lock when it cannot register itself in the store', async () => {
    const store = await cluster.createDatabase('liveness_unregistered');
    const pool = createPool(store, 2);
    try {
      // No store schema in this database: the lock is taken, the registration fails.
      await expect(holdLiveness(store, pool, 'worker-start-2', () => undefined)).rejects.toThrow(/workers/);
      const { rows } = await pool.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [
        LIVENESS_LOCK_SPACE,
        'worker-start-2',
      ]);
      expect(rows[0]?.locked).toBe(true);
    } finally {
      await pool.end();
    }
  }, 120_000);
});

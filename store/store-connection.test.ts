// A submitter's store connection (one per serve replica, for all the runs it follows) against a real
// PostgreSQL: when its LISTEN connection is cut (the store restarted, a proxy closed it), it listens
// again and wakes its followers, instead of leaving every followed run to the slow poll for good.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { RUN_EVENTS_CHANNEL } from './store.js';
import { openStoreConnection } from './store-connection.js';
import { otherSessions } from './test-support/store-sessions.js';
import { useStoreForFile } from './test-support/worker-processes.js';

const testStore = useStoreForFile();

describe('a store connection whose LISTEN connection is cut', () => {
  it('listens again, wakes its followers, and is woken by the next run event', async () => {
    const store = await testStore.cluster.createDatabase('connection_relisten');
    const admin = new pg.Client({ connectionString: store });
    await admin.connect();
    const connection = await openStoreConnection(store, 2);
    try {
      const listeners = (): Promise<number[]> => otherSessions(admin, { listening: true });
      let woken = 0;
      const stop = connection.onRunEvents('run-1', () => woken++);
      const [first] = await listeners();
      expect(first).toBeDefined();
      await admin.query('SELECT pg_terminate_backend($1)', [first]);

      await expect.poll(async () => (await listeners()).filter((pid) => pid !== first).length, { timeout: 60_000 }).toBe(1);
      // Notifications sent while it was not listening are lost: its followers are woken to look again.
      await expect.poll(() => woken, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
      const before = woken;
      await admin.query('SELECT pg_notify($1, $2)', [RUN_EVENTS_CHANNEL, 'run-1']);
      await expect.poll(() => woken, { timeout: 60_000 }).toBe(before + 1);
      stop();
    } finally {
      await connection.close();
      await admin.end();
    }
  }, 120_000);
});

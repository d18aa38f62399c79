// The store monitor (the studio's view of a store) against a real PostgreSQL: its LISTEN connection is
// opened once however often its poll comes while that connection is still being opened, and none is
// left open after close.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStoreMonitor } from './index.js';
import { otherSessions } from './test-support/store-sessions.js';
import { useStoreForFile, waitUntil } from './test-support/worker-processes.js';

const testStore = useStoreForFile();

describe('a store monitor watching the store', () => {
  it('keeps one LISTEN connection while its polls come faster than it connects, and closes it', async () => {
    const store = await testStore.cluster.createDatabase('monitor_listen');
    const admin = new pg.Client({ connectionString: store });
    await admin.connect();
    try {
      const others = async (options: { listening?: boolean } = {}): Promise<number> => (await otherSessions(admin, options)).length;
      const monitor = await openStoreMonitor(store);
      let wakes = 0;
      // A poll every millisecond: many polls come while the LISTEN connection is being opened.
      monitor.watch(() => wakes++, 1);
      await expect.poll(() => others({ listening: true }), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
      const seen = wakes;
      await waitUntil('more polls after the monitor listens', () => wakes >= seen + 100, 60_000);
      expect(await others({ listening: true })).toBe(1);
      await monitor.close();
      await expect.poll(() => others(), { timeout: 60_000 }).toBe(0);
    } finally {
      await admin.end();
    }
  }, 120_000);
});

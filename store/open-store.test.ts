// The store object against a real PostgreSQL: its views share one pool (no view opens connections of its
// own), DBOS's client and the LISTEN connection open only when a view needs them, and close closes all.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DurableError, openStore } from './index.js';
import { otherSessions } from './test-support/store-sessions.js';
import { useStoreForFile } from './test-support/worker-processes.js';

const testStore = useStoreForFile();

describe('openStore', () => {
  it('serves every view from one pool of the size asked for, and closes every connection it opened', async () => {
    const url = await testStore.cluster.createDatabase('one_store');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const store = await openStore(url, { poolSize: 2 });
      expect(store.label).not.toContain('password');
      // Views of every kind, at once: none may take a connection past the store's pool.
      const sessions = store.agentSessions();
      const serve = store.serveSessions(60_000);
      const [approvals, trace, hasEvents, recorded] = await Promise.all([
        store.approvals.list({ all: true }),
        store.traces.read('no-such-run'),
        store.runs.hasEvents('no-such-run'),
        serve.record('session-1', { protocolVersion: '2025-11-25' }),
        sessions.update('sess_one', 'echo', (session) => session.messages.push({ role: 'user', content: 'hi', timestamp: 'now' })),
      ]);
      expect(approvals).toEqual([]);
      expect(trace).toBeUndefined();
      expect(hasEvents).toBe(false);
      expect(await serve.touch('session-1')).toMatchObject({ init: { protocolVersion: '2025-11-25' }, seen: expect.any(String) });
      expect(recorded).toEqual(expect.any(String));
      expect((await sessions.get('sess_one'))?.messages.map((message) => message.content)).toEqual(['hi']);
      expect((await otherSessions(admin)).length).toBeLessThanOrEqual(2);
      expect(await otherSessions(admin, { listening: true })).toEqual([]);

      // The submitters' connection: one LISTEN connection, opened once however often it is asked for.
      const [first, second] = await Promise.all([store.connection(), store.connection()]);
      expect(first).toBe(second);
      await expect.poll(async () => (await otherSessions(admin, { listening: true })).length, { timeout: 30_000 }).toBe(1);
      expect(await store.retention.prune(0)).toMatchObject({ runs: 0 });

      await store.close();
      await expect.poll(async () => (await otherSessions(admin)).length, { timeout: 30_000 }).toBe(0);
    } finally {
      await admin.end();
    }
  }, 120_000);

  it('says STORE_UNAVAILABLE when the database cannot be reached', async () => {
    const url = await testStore.cluster.createDatabase('gone_store');
    const unreachable = url.replace(/gone_store$/, 'no_such_database');
    const error = await openStore(unreachable).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DurableError);
    expect((error as DurableError).code).toBe('STORE_UNAVAILABLE');
  }, 60_000);
});

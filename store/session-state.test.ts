/**
 * Session state in the store (a private PostgreSQL cluster): two store objects — two processes — see
 * one state; the quota holds when they set at once; expired keys are neither read nor counted, and
 * retention deletes them; a prefix is text, not a pattern; a space over the store keeps its state
 * across being closed and opened again.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpace } from '../space/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { openStore, type Store } from './index.js';
import { startPostgresCluster, type PostgresCluster } from './test-support/postgres-cluster.js';

const LIMITS = { maxBytes: 1000, maxKeys: 5, ttlMs: 60_000 };
const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('session state in the store', () => {
  let cluster: PostgresCluster;
  let one: Store;
  let two: Store;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const url = await cluster.createDatabase('session_state');
    one = await openStore(url);
    two = await openStore(url);
  }, 120_000);
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await cluster?.stop();
  });

  it('shows what one process set to another, per scope', async () => {
    const set = await one.sessionState.set('mcp:a', 'cart', JSON.stringify({ items: ['tea'] }), LIMITS, T0);
    expect(set).toEqual({ stored: true, usedBytes: 4 + 17, keys: 1, expiresAt: new Date(T0 + 60_000).toISOString() });
    expect(await two.sessionState.get('mcp:a', 'cart', T0 + 1)).toBe('{"items":["tea"]}');
    expect(await two.sessionState.get('mcp:b', 'cart', T0 + 1)).toBeUndefined();
    expect(await two.sessionState.list('mcp:b', '', T0 + 1)).toEqual([]);
    expect(await two.sessionState.delete('mcp:a', 'cart', T0 + 2)).toBe(true);
    expect(await one.sessionState.get('mcp:a', 'cart', T0 + 3)).toBeUndefined();
    expect(await one.sessionState.delete('mcp:a', 'cart', T0 + 3)).toBe(false);
  });

  it('keeps the quota when two processes set keys of one scope at once', async () => {
    const sets = Array.from({ length: 12 }, (_, index) =>
      (index % 2 === 0 ? one : two).sessionState.set('race', `key-${index}`, '1', LIMITS, T0),
    );
    const outcomes = await Promise.all(sets);
    expect(outcomes.filter((outcome) => outcome.stored)).toHaveLength(5);
    expect(outcomes.filter((outcome) => !outcome.stored)).toEqual(
      Array.from({ length: 7 }, () => expect.objectContaining({ stored: false, limit: 'maxKeys', keys: 5 })),
    );
    expect(await one.sessionState.list('race', '', T0)).toHaveLength(5);
    // Bytes: a value that would bring the scope over 1000 bytes is refused, the old value kept.
    const refused = await two.sessionState.set('race', 'key-0', JSON.stringify('x'.repeat(990)), LIMITS, T0);
    expect(refused).toMatchObject({ stored: false, limit: 'maxBytes' });
  });

  it('neither reads, lists nor counts an expired key, and retention deletes it', async () => {
    await one.sessionState.set('ttl', 'old', '"old"', LIMITS, T0);
    await one.sessionState.set('ttl', 'new', '"new"', LIMITS, T0 + 30_000);
    const later = T0 + 61_000;
    expect(await two.sessionState.get('ttl', 'old', later)).toBeUndefined();
    expect((await two.sessionState.list('ttl', '', later)).map((entry) => entry.key)).toEqual(['new']);
    for (const key of ['a', 'b', 'c', 'd'])
      expect(await two.sessionState.set('ttl', key, '0', LIMITS, later)).toMatchObject({ stored: true });
    expect(await two.sessionState.prune(T0 + 200_000)).toBeGreaterThanOrEqual(5);
    expect(await one.sessionState.list('ttl', '', T0)).toEqual([]);
  });

  it('takes a prefix as text: "%" and "_" match only themselves', async () => {
    for (const key of ['50%', '50_off', '500', 'a%b']) await one.sessionState.set('prefix', key, '0', LIMITS, T0);
    expect((await one.sessionState.list('prefix', '50%', T0)).map((entry) => entry.key)).toEqual(['50%']);
    expect((await one.sessionState.list('prefix', '50_', T0)).map((entry) => entry.key)).toEqual(['50_off']);
    expect((await one.sessionState.list('prefix', '%', T0)).map((entry) => entry.key)).toEqual([]);
  });

  it("keeps a space's session state across the space (and its store connection) being closed and opened again", async () => {
    const root = await makeTempDir('session-store-space');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    const url = one.url;
    const first = await openStore(url);
    const space = await createSpace({ cwd: root, sessionState: first.sessionState });
    const wrote = await space.run(
      "import { set } from '@capabilities/session';\nexport default (await set({ key: 'visits', value: 1 })).keys;",
      { session: 'restart' },
    );
    expect(wrote.result).toBe(1);
    await space.close();
    await first.close();
    const second = await openStore(url);
    const again = await createSpace({ cwd: root, sessionState: second.sessionState });
    try {
      const read = await again.run(
        "import { get, set } from '@capabilities/session';\nconst visits = (await get({ key: 'visits' })) as number;\nawait set({ key: 'visits', value: visits + 1 });\nexport default visits + 1;",
        { session: 'restart' },
      );
      expect(read.result).toBe(2);
      expect(await second.sessionState.get('restart', 'visits', Date.now())).toBe('2');
    } finally {
      await again.close();
      await second.close();
    }
  }, 120_000);
});

// The call journal written off the program's path (worker/journal-writer.ts), against a real PostgreSQL:
// a program does not wait for a `finished` row, nor for anything of an idempotent call; a non-idempotent
// call is performed only once its `started` row (and every row before it) is committed; a write lost in
// a crash costs an idempotent call a second performance and a non-idempotent one an unknown outcome,
// never a call performed twice; a write that fails stops the run. The journal table is locked by another
// session to hold the writer's statement, and that statement is cancelled to lose it.
import { describe, expect, it } from 'vitest';
import { attempt as attemptOn, callOf, useJournalDatabase } from './test-support/journal-database.js';

const database = useJournalDatabase('journal_writer', 3);
/** An attempt of run `runId` (see test-support/journal-database.ts). */
const attempt = (runId: string) => attemptOn(database.pool, runId);

/** Holds every write to the journal until `release` (reads go on). */
async function lockJournal(): Promise<{ release(): Promise<void> }> {
  await database.admin.query('BEGIN');
  await database.admin.query('LOCK TABLE agent_spaces.call_journal IN SHARE MODE');
  return { release: async () => void (await database.admin.query('COMMIT')) };
}

/** The backend whose journal write waits for the lock, once there is one. */
async function blockedWriter(): Promise<number> {
  let pid: number | undefined;
  await expect
    .poll(async () => {
      // The admin session is inside its locking transaction, where pg_stat_activity is read once unless cleared.
      await database.admin.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await database.admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO agent_spaces.call_journal%'",
      );
      pid = rows[0]?.pid;
      return pid;
    })
    .toBeDefined();
  return pid as number;
}

async function rowsOf(runId: string): Promise<{ call_key: string; status: string }[]> {
  const { rows } = await database.admin.query<{ call_key: string; status: string }>(
    'SELECT call_key, status FROM agent_spaces.call_journal WHERE run_id = $1 ORDER BY call_key',
    [runId],
  );
  return rows;
}

describe('the journal off the program path', () => {
  it('answers an idempotent call while its row is not written, and performs a non-idempotent one only once its started row is', async () => {
    const { journal, fatal } = await attempt('run-off-path');
    const lock = await lockJournal();
    let released = false;
    try {
      // Its row cannot be written while the table is locked: the program has the value all the same.
      expect(await journal.perform(callOf({ item: 'a' }, 'peek'), async () => 'read')).toBe('read');
      let performed = false;
      const appended = journal.perform(callOf({ line: 1 }, 'append'), async () => (performed = true));
      await blockedWriter();
      // Its `started` row waits behind the peek's `finished` row (one writer, in order): not performed yet.
      expect(performed).toBe(false);
      expect(await rowsOf('run-off-path')).toEqual([]);
      await lock.release();
      released = true;
      expect(await appended).toBe(true);
    } finally {
      if (!released) await lock.release();
    }
    await journal.flush();
    const rows = await rowsOf('run-off-path');
    expect(rows.map((row) => [row.call_key.split('#')[0], row.status])).toEqual([
      ['ledger.append', 'finished'],
      ['ledger.peek', 'finished'],
    ]);
    expect(fatal).toEqual([]);
  }, 120_000);

  it('performs an idempotent call again when a crash lost its finished row, and the replay succeeds', async () => {
    const first = await attempt('run-lost-idempotent');
    const lock = await lockJournal();
    try {
      expect(await first.journal.perform(callOf({ item: 'b' }, 'peek'), async () => 'first')).toBe('first');
      // The worker "dies" before the write commits: the statement is cancelled.
      await database.admin.query('SELECT pg_cancel_backend($1)', [await blockedWriter()]);
      await expect(first.journal.flush()).rejects.toThrow(/call journal of run run-lost-idempotent could not be written/);
    } finally {
      await lock.release();
    }
    expect(await rowsOf('run-lost-idempotent')).toEqual([]);
    const replay = await attempt('run-lost-idempotent');
    expect(replay.journal.replayed).toBe(0);
    expect(await replay.journal.perform(callOf({ item: 'b' }, 'peek'), async () => 'again')).toBe('again');
    await replay.journal.flush();
    expect(replay.journal.finish()).toBeUndefined();
    expect(replay.fatal).toEqual([]);
  }, 120_000);

  it('ends a replay OUTCOME_UNKNOWN, without performing it again, when a non-idempotent call lost its finished row', async () => {
    const first = await attempt('run-lost-finished');
    let lock: { release(): Promise<void> } | undefined;
    try {
      // Its `started` row is committed before it is performed; its `finished` row is then held and lost.
      const value = await first.journal.perform(callOf({ to: 'bob' }, 'pay'), async () => {
        lock = await lockJournal();
        return 'paid';
      });
      expect(value).toBe('paid');
      await database.admin.query('SELECT pg_cancel_backend($1)', [await blockedWriter()]);
      await expect(first.journal.flush()).rejects.toThrow(/could not be written/);
    } finally {
      await lock?.release();
    }
    expect((await rowsOf('run-lost-finished')).map((row) => row.status)).toEqual(['started']);
    const replay = await attempt('run-lost-finished');
    let performed = false;
    await expect(replay.journal.perform(callOf({ to: 'bob' }, 'pay'), async () => (performed = true))).rejects.toThrow(
      /outcome of ledger\.pay .* is unknown/,
    );
    expect(performed).toBe(false);
    expect(replay.fatal.map((error) => error.code)).toEqual(['OUTCOME_UNKNOWN']);
  }, 120_000);

  it('stops the run when a write fails: STORE_UNAVAILABLE, and no non-idempotent call after it', async () => {
    const { journal, fatal } = await attempt('run-write-fails');
    const lock = await lockJournal();
    try {
      await journal.perform(callOf({ item: 'c' }, 'peek'), async () => 'read');
      await database.admin.query('SELECT pg_cancel_backend($1)', [await blockedWriter()]);
      await expect.poll(() => fatal.length).toBe(1);
    } finally {
      await lock.release();
    }
    expect(fatal[0]?.code).toBe('STORE_UNAVAILABLE');
    expect(journal.fatal).toBe(fatal[0]);
    let performed = false;
    await expect(journal.perform(callOf({ line: 2 }, 'append'), async () => (performed = true))).rejects.toThrow(
      /call journal of run run-write-fails could not be written/,
    );
    expect(performed).toBe(false);
    expect(await rowsOf('run-write-fails')).toEqual([]);
  }, 120_000);
});

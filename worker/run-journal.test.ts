// The run journal against a real PostgreSQL: what a replay that diverges is told, at a new call and
// at the program's end (the journaled calls it did not make again, the first three by name); what a
// replay does after a call of an earlier attempt was left in flight (its outcome unknown).
import { describe, expect, it } from 'vitest';
import type { DurableError } from '../store/durable-error.js';
import { openRunJournal } from './run-journal.js';
import { attempt as attemptOn, callOf, useJournalDatabase } from './test-support/journal-database.js';

const database = useJournalDatabase('run_journal', 2);
/** An attempt of run `runId` (see test-support/journal-database.ts). */
const attempt = (runId: string) => attemptOn(database.pool, runId);

/** A first attempt that finished `ledger.append({ line: 1 })` and died with `ledger.charge({ nonce: 'n1' })` in flight. */
async function crashedWithChargeInFlight(runId: string): Promise<void> {
  const first = await attempt(runId);
  await first.journal.perform(callOf({ line: 1 }), async () => 1);
  // Journaled as started, then never finished: the worker died during the call.
  void first.journal.perform(callOf({ nonce: 'n1' }, 'charge'), () => new Promise(() => undefined));
  await expect
    .poll(
      async () =>
        (
          await database.pool.query(
            "SELECT 1 FROM agent_spaces.call_journal WHERE run_id = $1 AND status = 'started' AND function = 'charge'",
            [runId],
          )
        ).rowCount,
    )
    .toBe(1);
}

describe('a replay after a call was left in flight', () => {
  it('does not perform the call at its place with other arguments (a nonce from the clock): OUTCOME_UNKNOWN', async () => {
    await crashedWithChargeInFlight('run-nonce');
    const replay = await attempt('run-nonce');
    expect(await replay.journal.perform(callOf({ line: 1 }), async () => 'performed again')).toBe(1);
    let performed = false;
    await expect(replay.journal.perform(callOf({ nonce: 'n2' }, 'charge'), async () => (performed = true))).rejects.toThrow(
      /outcome of ledger\.charge .* is unknown/,
    );
    expect(performed).toBe(false);
    expect(replay.fatal.map((error) => error.code)).toEqual(['OUTCOME_UNKNOWN']);
    expect(replay.fatal[0]?.message).toMatch(/this attempt called ledger\.charge in its place .* which is not performed/);
    expect(replay.fatal[0]?.details).toMatchObject({
      inFlight: [{ capability: 'ledger', function: 'charge', occurrence: 1 }],
      instead: { capability: 'ledger', function: 'charge' },
    });
  }, 120_000);

  it('does not perform another non-idempotent call in its place, performs an idempotent one, and ends OUTCOME_UNKNOWN', async () => {
    await crashedWithChargeInFlight('run-other');
    const replay = await attempt('run-other');
    await replay.journal.perform(callOf({ line: 1 }), async () => 'performed again');
    expect(await replay.journal.perform(callOf({ item: 'x' }, 'peek'), async () => 'read')).toBe('read');
    let performed = false;
    await expect(replay.journal.perform(callOf({ line: 2 }), async () => (performed = true))).rejects.toThrow(
      /OUTCOME_UNKNOWN|outcome of ledger\.charge/,
    );
    expect(performed).toBe(false);
    expect(replay.fatal[0]?.code).toBe('OUTCOME_UNKNOWN');
    expect(replay.journal.finish()).toBeUndefined();
    expect(replay.journal.fatal?.code).toBe('OUTCOME_UNKNOWN');
  }, 120_000);

  it('ends OUTCOME_UNKNOWN when the program skips it, whether it then succeeds or fails', async () => {
    await crashedWithChargeInFlight('run-skip');
    const replay = await attempt('run-skip');
    await replay.journal.perform(callOf({ line: 1 }), async () => 'performed again');
    const ended = replay.journal.finish({ divergence: false });
    expect(ended?.code).toBe('OUTCOME_UNKNOWN');
    expect(ended?.message).toMatch(
      /^the outcome of ledger\.charge \(call 1 with these arguments\) is unknown: it was in flight when the worker running run run-skip stopped; this attempt ended without making it again/,
    );
    expect(replay.journal.fatal).toBe(ended);
  }, 120_000);

  it('refuses the approval of a call it would not perform, but not of a finished call made again', async () => {
    await crashedWithChargeInFlight('run-approval');
    const replay = await attempt('run-approval');
    expect(replay.journal.refuses('ledger', 'append', { line: 1 }, false)).toBeUndefined();
    await replay.journal.perform(callOf({ line: 1 }), async () => 'performed again');
    expect(replay.journal.refuses('ledger', 'send', { item: 'a' }, true)).toBeUndefined();
    expect(replay.journal.refuses('ledger', 'send', { item: 'a' }, false)?.code).toBe('OUTCOME_UNKNOWN');
    expect(replay.fatal.map((error) => error.code)).toEqual(['OUTCOME_UNKNOWN']);
  }, 120_000);

  it("says a new call before the journaled ones diverged, and that an in-flight call's outcome is unknown", async () => {
    await crashedWithChargeInFlight('run-early');
    const replay = await attempt('run-early');
    let performed = false;
    await expect(replay.journal.perform(callOf({ line: 2 }), async () => (performed = true))).rejects.toThrow(
      /diverged from its journal: the program called ledger\.append .* before making again the journaled ledger\.append \(call 1 with these arguments\) \(and the outcome of the journaled ledger\.charge \(call 1 with these arguments\), in flight when the worker stopped, is unknown\)/,
    );
    expect(performed).toBe(false);
    expect(replay.fatal.map((error) => error.code)).toEqual(['REPLAY_DIVERGED']);
  }, 120_000);

  it('performs no call once its worker is stopping (another worker may take the run over)', async () => {
    let stopping = false;
    const journal = await openRunJournal(database.pool, {
      runId: 'run-stopping',
      executorId: 'test',
      isIdempotent: (call) => call.function.name === 'peek',
      onFatal: () => undefined,
      stopping: () => stopping,
    });
    expect(await journal.perform(callOf({ line: 1 }), async () => 1)).toBe(1);
    stopping = true;
    const performed: string[] = [];
    await expect(journal.perform(callOf({ line: 2 }), async () => performed.push('append'))).rejects.toThrow(
      /was not performed: the worker running run run-stopping is stopping/,
    );
    await expect(journal.perform(callOf({ item: 'x' }, 'peek'), async () => performed.push('peek'))).rejects.toThrow(/is stopping/);
    expect(performed).toEqual([]);
    await journal.flush();
    const { rows } = await database.pool.query<{ call_key: string }>(
      "SELECT call_key FROM agent_spaces.call_journal WHERE run_id = 'run-stopping'",
    );
    expect(rows).toHaveLength(1);
  }, 120_000);

  it('performs the same call again when its function is idempotent now, and the run may then succeed', async () => {
    const first = await attempt('run-now-idempotent');
    void first.journal.perform(callOf({ item: 'y' }, 'charge'), () => new Promise(() => undefined));
    await expect
      .poll(async () => (await database.pool.query("SELECT 1 FROM agent_spaces.call_journal WHERE run_id = 'run-now-idempotent'")).rowCount)
      .toBe(1);
    const fatal: DurableError[] = [];
    const replay = await openRunJournal(database.pool, {
      runId: 'run-now-idempotent',
      executorId: 'test',
      isIdempotent: () => true,
      onFatal: (error) => fatal.push(error),
    });
    expect(await replay.perform(callOf({ item: 'y' }, 'charge'), async () => 'charged')).toBe('charged');
    expect(replay.finish()).toBeUndefined();
    expect(fatal).toEqual([]);
  }, 120_000);
});

describe('a replay that diverges from its journal', () => {
  it('names the journaled calls not made again, the first three and how many more', async () => {
    const first = await attempt('run-diverge');
    for (const line of [1, 2, 3, 4, 5]) await first.journal.perform(callOf({ line }), async () => line);
    // The attempt's end: its writer has committed every row (a crash could have lost the last `finished` one).
    await first.journal.flush();

    const ended = await attempt('run-diverge');
    expect(ended.journal.replayed).toBe(5);
    expect(await ended.journal.perform(callOf({ line: 1 }), async () => 'performed again')).toBe(1);
    expect(ended.journal.finish()?.message).toMatch(
      /^the replay of run run-diverge diverged from its journal: the program ended without making again the journaled (ledger\.append \(call 1 with these arguments\), ){2}ledger\.append \(call 1 with these arguments\) and 1 more$/,
    );

    const overtaken = await attempt('run-diverge');
    await expect(overtaken.journal.perform(callOf({ line: 6 }), async () => 6)).rejects.toThrow(
      /the program called ledger\.append \(call 1 with these arguments\), which the journal does not hold, before making again the journaled .* and 2 more\. A program must make the same calls/,
    );
    expect(overtaken.fatal.map((error) => error.code)).toEqual(['REPLAY_DIVERGED']);
    expect(overtaken.fatal[0]?.details?.notMadeAgain).toHaveLength(5);
  }, 120_000);
});

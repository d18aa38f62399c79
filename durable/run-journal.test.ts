// The run journal against a real PostgreSQL: what a replay that diverges is told, at a new call and
// at the program's end (the journaled calls it did not make again, the first three by name).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendCall } from '../bridge/index.js';
import type { DurableError } from './durable-error.js';
import { openRunJournal } from './run-journal.js';
import { createPool, ensureStoreSchema, type Pool } from './store.js';
import { startPostgresCluster, type PostgresCluster } from './test-support/postgres-cluster.js';

let cluster: PostgresCluster;
let pool: Pool;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  const url = await cluster.createDatabase('run_journal');
  pool = createPool(url, 2);
  await ensureStoreSchema(url, pool);
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await cluster?.stop();
});

const callOf = (args: Record<string, unknown>): BackendCall =>
  ({ capability: { module: 'ledger' }, function: { name: 'append' }, args, context: { signal: new AbortController().signal } }) as unknown as BackendCall;

async function attempt(runId: string) {
  const fatal: DurableError[] = [];
  const journal = await openRunJournal(pool, { runId, executorId: 'test', isIdempotent: () => false, onFatal: (error) => fatal.push(error) });
  return { journal, fatal };
}

describe('a replay that diverges from its journal', () => {
  it('names the journaled calls not made again, the first three and how many more', async () => {
    const first = await attempt('run-diverge');
    for (const line of [1, 2, 3, 4, 5]) await first.journal.perform(callOf({ line }), async () => line);

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

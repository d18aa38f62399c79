/**
 * What the journal's tests share: a database of their own on a private PostgreSQL cluster (one per test
 * file, started before its tests and stopped after them), the backend call they journal, and an attempt
 * of a run whose `ledger.peek` is idempotent and every other function is not.
 */
import { afterAll, beforeAll } from 'vitest';
import type { BackendCall } from '../../bridge/index.js';
import type { DurableError } from '../../store/durable-error.js';
import { connectClient, createPool, ensureStoreSchema, type Client, type Pool } from '../../store/store.js';
import { startPostgresCluster, type PostgresCluster } from '../../store/test-support/postgres-cluster.js';
import { openRunJournal } from '../run-journal.js';

export interface JournalDatabase {
  /** The store's pool on the file's database (set once its set-up ran). */
  readonly pool: Pool;
  /** A session of its own, for what a test does beside the journal (locks, cancels). */
  readonly admin: Client;
}

/** Registers the file's cluster and database (`name`) with vitest; read the fields inside tests only. */
export function useJournalDatabase(name: string, poolSize: number): JournalDatabase {
  let cluster: PostgresCluster | undefined;
  const database: { pool?: Pool; admin?: Client } = {};
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const url = await cluster.createDatabase(name);
    database.pool = createPool(url, poolSize);
    await ensureStoreSchema(url, database.pool);
    database.admin = await connectClient(url);
  }, 120_000);
  afterAll(async () => {
    await database.admin?.end();
    await database.pool?.end();
    await cluster?.stop();
  });
  return {
    get pool() {
      if (database.pool === undefined) throw new Error('the journal database is not set up yet (use it inside a test)');
      return database.pool;
    },
    get admin() {
      if (database.admin === undefined) throw new Error('the journal database is not set up yet (use it inside a test)');
      return database.admin;
    },
  };
}

/** The backend call `ledger.<name>(args)` as the bridge hands it to the journal. */
export const callOf = (args: Record<string, unknown>, name = 'append'): BackendCall =>
  ({
    capability: { module: 'ledger' },
    function: { name },
    args,
    context: { signal: new AbortController().signal },
  }) as unknown as BackendCall;

/** An attempt of run `runId`: its journal, and the fatal errors it reported. `ledger.peek` is idempotent, every other function is not. */
export async function attempt(
  pool: Pool,
  runId: string,
): Promise<{ journal: Awaited<ReturnType<typeof openRunJournal>>; fatal: DurableError[] }> {
  const fatal: DurableError[] = [];
  const journal = await openRunJournal(pool, {
    runId,
    executorId: 'test',
    isIdempotent: (call) => call.function.name === 'peek',
    onFatal: (error) => fatal.push(error),
  });
  return { journal, fatal };
}

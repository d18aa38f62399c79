import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { migrateDbosSchema } from './dbos-schema.js';
import { pruneOnce, type PruneReport } from './prune.js';
import { createPool, ensureStoreSchema, storeUnavailable } from './store.js';
import { APPLICATION_NAME } from './workflow-names.js';

export interface PruneStoreOptions {
  /** The store's PostgreSQL URL. */
  store: string;
  /** Runs that ended longer ago than this (ms) lose their rows; 0: every finished run. */
  olderThanMs: number;
}

/**
 * Deletes the rows of the store's runs and tasks that ended more than `olderThanMs` ago (see
 * `pruneFinishedRuns`). `undefined` when a worker is pruning the same store right now.
 */
export async function pruneStore(options: PruneStoreOptions): Promise<PruneReport | undefined> {
  const pool = createPool(options.store, 3);
  let dbos: DBOSClient | undefined;
  try {
    await ensureStoreSchema(options.store, pool);
    try {
      await migrateDbosSchema(options.store);
      // On our pool: DBOS's own sends a query on each new connection it does not wait for (pg's deprecation).
      dbos = await DBOSClient.create({ systemDatabaseUrl: options.store, systemDatabasePool: pool, applicationName: APPLICATION_NAME });
    } catch (error) {
      throw storeUnavailable(options.store, error);
    }
    const client = dbos;
    return await pruneOnce(
      pool,
      { listWorkflows: (input) => client.listWorkflows(input), deleteWorkflows: (ids) => client.deleteWorkflows(ids) },
      new Date(Date.now() - options.olderThanMs),
    );
  } finally {
    await dbos?.destroy().catch(() => undefined);
    await pool.end().catch(() => undefined);
  }
}

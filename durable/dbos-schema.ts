// DBOS.migrate logs to the console (stdout, where --json goes); the same migration with a silent logger.
import { migrateSystemDatabase } from '@dbos-inc/dbos-sdk/internal/system_database';
import { GlobalLogger } from '@dbos-inc/dbos-sdk/internal/telemetry/logs';
import { oncePerStore } from './once-per-store.js';

/**
 * Creates or upgrades DBOS's tables in the store, once per process and store (a submitter or
 * `store prune` may come before any worker did it; the migration takes DBOS's lock each time).
 */
export const migrateDbosSchema: (url: string) => Promise<void> = oncePerStore(async (url: string): Promise<void> => {
  const silent = { info: () => undefined, debug: () => undefined, warn: () => undefined, error: () => undefined };
  await migrateSystemDatabase(url, new GlobalLogger(undefined, { logger: silent }));
});

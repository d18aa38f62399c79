import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { migrateDbosSchema } from './dbos-schema.js';
import { storeUnavailable, type Pool } from './store.js';
import { APPLICATION_NAME } from './workflow-names.js';

/**
 * DBOS's client on `pool` (DBOS's own pool sends a query on each new connection it does not wait for:
 * pg's deprecation), after making DBOS's tables when missing (a store no worker ever started holds none
 * yet; made under the store's set-up lock). STORE_UNAVAILABLE when that fails.
 */
export async function openDbosClient(url: string, pool: Pool): Promise<DBOSClient> {
  try {
    await migrateDbosSchema(url);
    return await DBOSClient.create({ systemDatabaseUrl: url, systemDatabasePool: pool, applicationName: APPLICATION_NAME });
  } catch (error) {
    throw storeUnavailable(url, error);
  }
}

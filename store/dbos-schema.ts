// DBOS's schema and its connections in our store. DBOS.migrate logs to the console (stdout, where
// --json goes): the same migration with a silent logger.
import pg from 'pg';
import { migrateSystemDatabase } from '@dbos-inc/dbos-sdk/internal/system_database';
import { GlobalLogger } from '@dbos-inc/dbos-sdk/internal/telemetry/logs';
import { oncePerStore } from './once-per-store.js';
import { connectClient, RUN_QUEUE_CHANNEL, SCHEMA, withSetupLock } from './store.js';
import { RUN_QUEUE } from './workflow-names.js';

/**
 * A run queued (a row of our queue written or set ENQUEUED: a submit, a takeover's resume, a delay
 * ended) notifies the run queue channel with its id, in the transaction that queues it: workers hear
 * of it as it commits, from whoever queued it (a submitter needs no statement of its own), and never
 * before its row can be read.
 */
const QUEUED_RUN_TRIGGER = `
CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
CREATE OR REPLACE FUNCTION ${SCHEMA}.notify_run_queued() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status = 'ENQUEUED' THEN
    RETURN NULL;
  END IF;
  PERFORM pg_notify('${RUN_QUEUE_CHANNEL}', NEW.workflow_uuid);
  RETURN NULL;
END
$fn$;
DO $do$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'agent_spaces_run_queued' AND tgrelid = 'dbos.workflow_status'::regclass) THEN
    CREATE TRIGGER agent_spaces_run_queued AFTER INSERT OR UPDATE OF status ON dbos.workflow_status
      FOR EACH ROW WHEN (NEW.status = 'ENQUEUED' AND NEW.queue_name = '${RUN_QUEUE}')
      EXECUTE FUNCTION ${SCHEMA}.notify_run_queued();
  END IF;
END
$do$;
`;

/** How long the store lets a DBOS connection sit idle inside a transaction before it ends it (DBOS's own default). */
const IDLE_IN_TRANSACTION_MS = 60_000;

/**
 * Creates or upgrades DBOS's tables in the store, once per process and store (a submitter or
 * `store prune` may come before any worker did it). DBOS's migration takes no lock of its own: two
 * processes migrating one fresh store at once fail one of them (`deadlock detected`, `duplicate key …
 * pg_type_typname_nsp_index`, `tuple concurrently updated`). So it runs under the store's set-up lock,
 * the one our own DDL takes: processes starting together take turns, and the later ones find the
 * schema made. The trigger that notifies workers of queued runs is made with it.
 */
export const migrateDbosSchema: (url: string) => Promise<void> = oncePerStore(async (url: string): Promise<void> => {
  const silent = { info: () => undefined, debug: () => undefined, warn: () => undefined, error: () => undefined };
  const lock = await connectClient(url);
  // A connection that dies while held would otherwise throw at an emitter with no listener; the query fails instead.
  lock.on('error', () => undefined);
  try {
    // A session lock (not a transaction's): the migration runs on connections of its own.
    await withSetupLock(lock, async () => {
      await migrateSystemDatabase(url, new GlobalLogger(undefined, { logger: silent }));
      await lock.query(QUEUED_RUN_TRIGGER);
    });
  } finally {
    // Ending the session frees the lock.
    await lock.end().catch(() => undefined);
  }
});

/**
 * The connection pool DBOS uses in a worker (and in a submitter's client). DBOS's own pool sets the
 * idle-in-transaction timeout with a query it issues on each new connection and does not wait for, so
 * the first query of whoever borrowed the connection ran while that one was still executing (pg's
 * "client.query() when the client is already executing a query" deprecation, an error in pg 9). Here
 * the timeout is a start-up parameter of the connection: no query at all.
 */
export function createEnginePool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS });
  // An idle connection lost (the server restarted) must not crash the process: the next query reports it.
  pool.on('error', () => undefined);
  return pool;
}

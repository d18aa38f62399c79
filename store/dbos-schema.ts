// DBOS's schema and its connections in our store. DBOS.migrate logs to the console (stdout, where
// --json goes): the same migration with a silent logger.
import pg from 'pg';
import { migrateSystemDatabase } from '@dbos-inc/dbos-sdk/internal/system_database';
import { GlobalLogger } from '@dbos-inc/dbos-sdk/internal/telemetry/logs';
import { oncePerStore } from './once-per-store.js';
import { connectClient, RUN_QUEUE_CHANNEL, SCHEMA, withSetupLock } from './store.js';
import { RUN_QUEUE } from './workflow-names.js';

const QUEUED_RUN_TRIGGER_NAME = 'agent_spaces_run_queued';

/**
 * A run queued (a row of our queue written ENQUEUED, or written again while it is: a submit, an attach,
 * a takeover's resume, a delay ended, a move from another queue) notifies the run queue channel with its
 * id, in the transaction that writes it: workers hear of it as it commits, from whoever queued it (a
 * submitter needs no statement of its own), and never before its row can be read.
 */
const QUEUED_RUN_NOTICE = `
CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
CREATE OR REPLACE FUNCTION ${SCHEMA}.notify_run_queued() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('${RUN_QUEUE_CHANNEL}', NEW.workflow_uuid);
  RETURN NULL;
END
$fn$;
`;
const QUEUED_RUN_TRIGGER = `
CREATE TRIGGER ${QUEUED_RUN_TRIGGER_NAME} AFTER INSERT OR UPDATE ON dbos.workflow_status
  FOR EACH ROW WHEN (NEW.status = 'ENQUEUED' AND NEW.queue_name = '${RUN_QUEUE}')
  EXECUTE FUNCTION ${SCHEMA}.notify_run_queued();
`;
/**
 * How long the first start after an upgrade waits to add the trigger: it locks DBOS's table against
 * writes while it waits for the writes under way (a long one would stall every enqueue and claim
 * behind it). A start that gives up leaves it to the next one; its submitters notify the workers themselves.
 */
const TRIGGER_LOCK_TIMEOUT = '2s';

/** The stores (by URL) where this process found or made the trigger that notifies workers of queued runs. */
const triggered = new Set<string>();

/**
 * Whether a run queued in `url` notifies the workers by itself (its trigger, made by migrateDbosSchema):
 * else whoever queues it notifies them (`notifyRunsQueued`).
 */
export function queuedRunsNotify(url: string): boolean {
  return triggered.has(url);
}

/**
 * Tells the workers listening on `url` that `runIds` were queued, where the store's trigger does not
 * already (the first start after an upgrade could not add it): a worker with room takes them now.
 */
export async function notifyRunsQueued(url: string, pool: pg.Pool, runIds: readonly string[]): Promise<void> {
  if (queuedRunsNotify(url)) return;
  await pool.query('SELECT pg_notify($1, id) FROM unnest($2::text[]) AS id', [RUN_QUEUE_CHANNEL, [...runIds]]);
}

/** Makes the trigger when missing (within TRIGGER_LOCK_TIMEOUT); whether it is there. */
async function addQueuedRunTrigger(client: pg.ClientBase): Promise<boolean> {
  const present = async (): Promise<boolean> =>
    (
      await client.query<{ present: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = $1 AND tgrelid = 'dbos.workflow_status'::regclass) AS present`,
        [QUEUED_RUN_TRIGGER_NAME],
      )
    ).rows[0]?.present === true;
  if (await present()) return true;
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lock_timeout = '${TRIGGER_LOCK_TIMEOUT}'`);
    await client.query(QUEUED_RUN_NOTICE);
    await client.query(QUEUED_RUN_TRIGGER);
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    // Writes held DBOS's table past the timeout: the next start tries again.
    if ((error as { code?: string }).code === '55P03') return false;
    throw error;
  }
}

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
      if (await addQueuedRunTrigger(lock)) triggered.add(url);
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

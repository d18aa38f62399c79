import { hostname } from 'node:os';
import { DurableError } from './durable-error.js';
import { connectClient, LIVENESS_LOCK_SPACE, SCHEMA, type Client, type Pool } from './store.js';

/**
 * A worker is alive while it holds its advisory lock, on a connection of its own: when its process
 * dies (even `kill -9`), PostgreSQL closes the connection and frees the lock. So "is it alive?" is a
 * try-lock, with no clock and no heartbeat to tune; a worker cut off from the database stops itself.
 */
export async function holdLiveness(
  url: string,
  pool: Pool,
  executorId: string,
  onLost: (error: Error) => void,
): Promise<{ release(): Promise<void> }> {
  const client: Client = await connectClient(url);
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [
    LIVENESS_LOCK_SPACE,
    executorId,
  ]);
  if (rows[0]?.locked !== true) {
    await client.end();
    throw new DurableError(
      'WORKER_ID_IN_USE',
      `another live worker already uses the id "${executorId}" in this store (or an id whose lock key collides with it): start this one with another --id, or stop the other worker first`,
      { details: { executorId } },
    );
  }
  let released = false;
  client.on('error', (error) => {
    if (!released) onLost(error);
  });
  client.on('end', () => {
    if (!released) onLost(new Error("the connection holding this worker's liveness lock closed"));
  });
  try {
    await pool.query(
      `INSERT INTO ${SCHEMA}.workers (executor_id, host, pid) VALUES ($1, $2, $3)
       ON CONFLICT (executor_id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, started_at = now()`,
      [executorId, hostname(), process.pid],
    );
  } catch (error) {
    // Not started: the lock goes with its connection, or this id would look alive for good.
    released = true;
    await client.end().catch(() => undefined);
    throw error;
  }
  return {
    async release() {
      if (released) return;
      released = true;
      await pool.query(`DELETE FROM ${SCHEMA}.workers WHERE executor_id = $1`, [executorId]).catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

/**
 * Runs `work` while holding a dead worker's lock (so no one else takes its runs over at the same
 * time); `false` when the worker is alive (or another worker is taking it over right now).
 */
export async function whileDead(pool: Pool, executorId: string, work: () => Promise<void>): Promise<boolean> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [
      LIVENESS_LOCK_SPACE,
      executorId,
    ]);
    if (rows[0]?.locked !== true) return false;
    try {
      await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LIVENESS_LOCK_SPACE, executorId]);
    }
    return true;
  } finally {
    client.release();
  }
}

/**
 * Common table expressions that look at every worker of the store: `probed` (its id, when it started,
 * whether it is alive), and the deletion of the rows of dead ones. A worker holds its lock, exclusively,
 * for as long as it lives; a shared try of that lock for the statement's transaction fails while it
 * does (or while a takeover of its runs holds it), and succeeds beside other looks, which take it shared
 * too. While the look's statement runs, a worker starting under a dead one's id cannot take the lock,
 * so the row deleted is the dead worker's.
 */
export const PROBE_WORKERS = `probed AS MATERIALIZED (
    SELECT executor_id, started_at, NOT pg_try_advisory_xact_lock_shared(${LIVENESS_LOCK_SPACE}, hashtext(executor_id)) AS alive
      FROM ${SCHEMA}.workers),
  gone AS (DELETE FROM ${SCHEMA}.workers AS dead USING probed WHERE NOT probed.alive AND dead.executor_id = probed.executor_id)`;

/** The ids of the workers alive now, in one statement; rows of dead ones are removed. */
export async function liveWorkers(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ executor_id: string }>(
    `WITH ${PROBE_WORKERS} SELECT executor_id FROM probed WHERE alive ORDER BY started_at`,
  );
  return rows.map((row) => row.executor_id);
}

import { prepared, SCHEMA, type Pool } from './store.js';

/**
 * The MCP sessions of `serve` replicas sharing a store: a 2025-11-25 session opened on one replica
 * (its `initialize` parameters: protocol version, client info, capabilities) is recorded here, so any
 * replica can serve the session's next request. A session idle for longer than `idleMs` is gone.
 * `seen` values mark when a replica last saw a session (opaque; compare by handing them back).
 */
export interface StoredServeSessions {
  /** Records a new session; its `seen` mark. */
  record(id: string, init: unknown): Promise<string>;
  /** The session's `initialize` parameters, marked as seen now; `undefined` when it is unknown, closed or idle too long. */
  touch(id: string): Promise<{ init: unknown; seen: string } | undefined>;
  /**
   * Forgets a session this replica let go of (evicted or idle here), unless a replica saw it after
   * `seen` (it is in use there): the table holds no more sessions than the replicas do.
   */
  release(id: string, seen: string): Promise<void>;
  remove(id: string): Promise<void>;
}

/** Every request of a shared session runs it: prepared. */
const TOUCH_SQL = prepared(
  `UPDATE ${SCHEMA}.serve_sessions SET last_seen = now() WHERE id = $1 AND last_seen >= now() - $2::interval RETURNING init, last_seen::text AS seen`,
);

export function createStoredServeSessions(pool: Pool, idleMs: number): StoredServeSessions {
  const idle = `${Math.max(1, Math.round(idleMs))} milliseconds`;
  return {
    async record(id, init) {
      // Sessions nobody came back for go when new ones come.
      await pool.query(`DELETE FROM ${SCHEMA}.serve_sessions WHERE last_seen < now() - $1::interval`, [idle]);
      const { rows } = await pool.query<{ seen: string }>(
        `INSERT INTO ${SCHEMA}.serve_sessions (id, init) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET init = EXCLUDED.init, last_seen = now() RETURNING last_seen::text AS seen`,
        [id, JSON.stringify(init ?? {})],
      );
      return rows[0]?.seen ?? '';
    },
    async touch(id) {
      const { rows } = await pool.query<{ init: string; seen: string }>({ ...TOUCH_SQL, values: [id, idle] });
      return rows[0] === undefined ? undefined : { init: JSON.parse(rows[0].init) as unknown, seen: rows[0].seen };
    },
    async release(id, seen) {
      await pool.query(`DELETE FROM ${SCHEMA}.serve_sessions WHERE id = $1 AND last_seen <= $2::timestamptz`, [id, seen]);
    },
    async remove(id) {
      await pool.query(`DELETE FROM ${SCHEMA}.serve_sessions WHERE id = $1`, [id]);
    },
  };
}

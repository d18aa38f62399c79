import { SCHEMA, type Pool } from './store.js';

/**
 * The MCP sessions of `serve` replicas sharing a store: a 2025-11-25 session opened on one replica
 * (its `initialize` parameters: protocol version, client info, capabilities) is recorded here, so any
 * replica can serve the session's next request. A session idle for longer than `idleMs` is gone.
 */
export interface SessionStore {
  record(id: string, init: unknown): Promise<void>;
  /** The session's `initialize` parameters, marked as seen now; `undefined` when it is unknown, closed or idle too long. */
  touch(id: string): Promise<unknown>;
  remove(id: string): Promise<void>;
}

export function createSessionStore(pool: Pool, idleMs: number): SessionStore {
  const idle = `${Math.max(1, Math.round(idleMs))} milliseconds`;
  return {
    async record(id, init) {
      // Sessions nobody came back for go when new ones come: the table stays as small as the live sessions.
      await pool.query(`DELETE FROM ${SCHEMA}.serve_sessions WHERE last_seen < now() - $1::interval`, [idle]);
      await pool.query(
        `INSERT INTO ${SCHEMA}.serve_sessions (id, init) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET init = EXCLUDED.init, last_seen = now()`,
        [id, JSON.stringify(init ?? {})],
      );
    },
    async touch(id) {
      const { rows } = await pool.query<{ init: string }>(
        `UPDATE ${SCHEMA}.serve_sessions SET last_seen = now() WHERE id = $1 AND last_seen >= now() - $2::interval RETURNING init`,
        [id, idle],
      );
      return rows[0] === undefined ? undefined : (JSON.parse(rows[0].init) as unknown);
    },
    async remove(id) {
      await pool.query(`DELETE FROM ${SCHEMA}.serve_sessions WHERE id = $1`, [id]);
    },
  };
}

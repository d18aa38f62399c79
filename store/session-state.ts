// Session state (`@capabilities/session`) in the store: every process of the store — serve replicas,
// workers, a worker taking over a run — reads and writes the same state. The shape is the one space/
// session-state/backing.ts declares (store/ and space/ do not import each other; TypeScript matches them).
import { SCHEMA, storeUnavailable, type Pool } from './store.js';
import { describeStore } from './store-url.js';

/** The limits of one scope (space/'s `SessionLimits`). */
export interface StoredSessionLimits {
  maxBytes: number;
  maxKeys: number;
  ttlMs: number;
}

/** One live key of a scope (space/'s `SessionEntry`). */
export interface StoredSessionEntry {
  key: string;
  bytes: number;
  updatedAt: string;
  expiresAt: string;
}

/** Session state in the store's `session_state` table; every method takes the host's clock (`now`, ms). */
export interface StoredSessionState {
  readonly location: string;
  get(scope: string, key: string, now: number): Promise<string | undefined>;
  set(
    scope: string,
    key: string,
    json: string,
    limits: StoredSessionLimits,
    now: number,
  ): Promise<
    | { stored: true; usedBytes: number; keys: number; expiresAt: string }
    | { stored: false; limit: 'maxBytes' | 'maxKeys'; usedBytes: number; keys: number }
  >;
  delete(scope: string, key: string, now: number): Promise<boolean>;
  list(scope: string, prefix: string, now: number): Promise<StoredSessionEntry[]>;
  /** Deletes every expired key of every scope (retention calls it); resolves to how many. */
  prune(now: number): Promise<number>;
}

const TABLE = `${SCHEMA}.session_state`;

// Its table (session_state: scope, key, value, bytes, updated_at, expires_at) is made with the store's
// others, by store/store.ts's DDL.

export function createStoredSessionState(pool: Pool, url: string): StoredSessionState {
  return {
    location: `the store ${describeStore(url)}`,
    async get(scope, key, now) {
      const { rows } = await pool.query<{ value: string }>(`SELECT value FROM ${TABLE} WHERE scope = $1 AND key = $2 AND expires_at > $3`, [
        scope,
        key,
        new Date(now),
      ]);
      return rows[0]?.value;
    },
    set: (scope, key, json, limits, now) => setInStore(pool, url, { scope, key, json, limits, now }),
    async delete(scope, key, now) {
      const { rowCount } = await pool.query(`DELETE FROM ${TABLE} WHERE scope = $1 AND key = $2 AND expires_at > $3`, [
        scope,
        key,
        new Date(now),
      ]);
      return (rowCount ?? 0) > 0;
    },
    async list(scope, prefix, now) {
      // A prefix is compared as text (left(...) = prefix), never as a LIKE pattern: "%" and "_" are characters.
      const { rows } = await pool.query<{ key: string; bytes: number; updated_at: Date; expires_at: Date }>(
        `SELECT key, octet_length(value) AS bytes, updated_at, expires_at FROM ${TABLE}
         WHERE scope = $1 AND expires_at > $2 AND left(key, char_length($3)) = $3 ORDER BY key COLLATE "C"`,
        [scope, new Date(now), prefix],
      );
      return rows.map((row) => ({
        key: row.key,
        bytes: Number(row.bytes),
        updatedAt: row.updated_at.toISOString(),
        expiresAt: row.expires_at.toISOString(),
      }));
    },
    async prune(now) {
      const { rowCount } = await pool.query(`DELETE FROM ${TABLE} WHERE expires_at <= $1`, [new Date(now)]);
      return rowCount ?? 0;
    },
  };
}

interface SetRequest {
  scope: string;
  key: string;
  json: string;
  limits: StoredSessionLimits;
  now: number;
}

/**
 * Checks the scope's quota and writes, in one transaction holding the scope's advisory lock: two
 * processes setting keys of one scope at once take turns, so they cannot both pass the quota.
 */
async function setInStore(pool: Pool, url: string, request: SetRequest): ReturnType<StoredSessionState['set']> {
  const { scope, key, json, limits, now } = request;
  const client = await pool.connect().catch((error: unknown) => {
    throw storeUnavailable(url, error);
  });
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('agent_spaces.session_state'), hashtext($1))", [scope]);
    await client.query(`DELETE FROM ${TABLE} WHERE scope = $1 AND expires_at <= $2`, [scope, new Date(now)]);
    const { rows } = await client.query<{ keys: number; used: string; previous: string; present: boolean }>(
      `SELECT count(*)::int AS keys, coalesce(sum(bytes), 0)::bigint AS used,
              coalesce(sum(bytes) FILTER (WHERE key = $2), 0)::bigint AS previous, coalesce(bool_or(key = $2), false) AS present
       FROM ${TABLE} WHERE scope = $1`,
      [scope, key],
    );
    const current = rows[0] ?? { keys: 0, used: '0', previous: '0', present: false };
    const bytes = Buffer.byteLength(key, 'utf8') + Buffer.byteLength(json, 'utf8');
    const used = Number(current.used);
    const usedBytes = used - Number(current.previous) + bytes;
    const keys = current.keys + (current.present ? 0 : 1);
    const refused = keys > limits.maxKeys ? 'maxKeys' : usedBytes > limits.maxBytes ? 'maxBytes' : undefined;
    if (refused !== undefined) {
      await client.query('ROLLBACK');
      return { stored: false, limit: refused, usedBytes: used, keys: current.keys };
    }
    const expiresAt = new Date(now + limits.ttlMs);
    await client.query(
      `INSERT INTO ${TABLE} (scope, key, value, bytes, updated_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (scope, key) DO UPDATE SET value = EXCLUDED.value, bytes = EXCLUDED.bytes, updated_at = EXCLUDED.updated_at, expires_at = EXCLUDED.expires_at`,
      [scope, key, json, bytes, new Date(now), expiresAt],
    );
    await client.query('COMMIT');
    return { stored: true, usedBytes, keys, expiresAt: expiresAt.toISOString() };
  } catch (error) {
    broken = error instanceof Error ? error : new Error(String(error));
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release(broken);
  }
}

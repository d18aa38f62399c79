/**
 * The other sessions of a test's database, as PostgreSQL lists them (`pg_stat_activity`): what tests
 * of LISTEN connections count and cut.
 */
import type pg from 'pg';

/** Process ids of the client sessions on `admin`'s database other than `admin`'s own; `listening`: only those whose last query was a LISTEN. */
export async function otherSessions(admin: pg.Client, options: { listening?: boolean } = {}): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname = current_database() AND pid <> pg_backend_pid()${options.listening === true ? " AND query LIKE 'LISTEN%'" : ''}`,
  );
  return rows.map((row) => row.pid);
}

import type pg from 'pg';
import { createRedactor, type Redactor, type SecretInput } from '../core/index.js';
import type { PreparedSql } from './store.js';

/**
 * A value written to the store. Identifiers, kinds, numbers and times are written as they are; what a
 * person may read — `{ json }` (an event, a task, a session's messages, a call's parameters) and
 * `{ text }` (an approval's message) — passes the redactor first.
 */
export type StoreValue = string | number | boolean | null | Date | { json: unknown } | { text: string };

/** Runs queries: the pool, or one of its clients inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/**
 * The one writer of rows a person may read (run events, approvals, agent sessions, A2A tasks): every
 * content value it writes has passed the host's redactor — the same one, with the same secrets, as
 * logs and terminal output — so no kind of event or row can be written unredacted by forgetting to.
 */
export interface StoreWriter {
  /** The pool writes go to by default; reads use it directly. */
  readonly pool: pg.Pool;
  readonly redact: Redactor;
  /** Runs `sql` (a text, or a prepared statement) with `params` (content values redacted, `{ json }` JSON-encoded), on `on` (default: the pool). */
  write<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string | PreparedSql,
    params: readonly StoreValue[],
    on?: Queryable,
  ): Promise<pg.QueryResult<Row>>;
}

/** A writer on `pool` that cuts `secrets` (a space passes `space.secrets`), URL passwords and credential shapes out of what it writes. */
export function createStoreWriter(pool: pg.Pool, secrets: readonly SecretInput[] = []): StoreWriter {
  const redact = createRedactor({ secrets });
  const encode = (value: StoreValue): unknown => {
    if (value === null || typeof value !== 'object' || value instanceof Date) return value;
    if ('json' in value) return JSON.stringify(redact(value.json));
    return redact.text(value.text);
  };
  return {
    pool,
    redact,
    write: <Row extends pg.QueryResultRow>(sql: string | PreparedSql, params: readonly StoreValue[], on: Queryable = pool) =>
      typeof sql === 'string'
        ? (on as Pick<pg.Pool, 'query'>).query<Row>(sql, params.map(encode))
        : (on as Pick<pg.Pool, 'query'>).query<Row>({ ...sql, values: params.map(encode) }),
  };
}

/** `target` as a writer: a bare pool gets one that knows no secret values (it still cuts secret-named keys, URL passwords and credential shapes). */
export function writerOf(target: pg.Pool | StoreWriter): StoreWriter {
  return 'write' in target ? target : createStoreWriter(target);
}

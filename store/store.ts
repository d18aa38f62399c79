import { createHash } from 'node:crypto';
import pg from 'pg';
import { errorMessage } from '../core/index.js';
import { DurableError } from './durable-error.js';
import { oncePerStore } from './once-per-store.js';
import { describeStore } from './store-url.js';

/** Our tables live in their own schema, beside DBOS's (`dbos`), in the same database. */
export const SCHEMA = 'agent_spaces';
/** Notification channels: a run's new events (payload: run id), a decided approval (payload: its id). */
export const RUN_EVENTS_CHANNEL = 'agent_spaces_run_events';
export const APPROVALS_CHANNEL = 'agent_spaces_approvals';
/**
 * A run's `end` event with its result, when it fits a notification (PostgreSQL's limit is 8000 bytes),
 * with the run's latest earlier events: a follower that has read up to one of them needs no read after
 * it. Sent beside the run events channel's own notification (payload: a RunEndNote's JSON).
 */
export const RUN_ENDS_CHANNEL = 'agent_spaces_run_ends';
/**
 * A run (or task) was queued or went back to the queue (payload: its id), sent by a trigger on DBOS's
 * table as the row commits: a worker with room claims it at once.
 */
export const RUN_QUEUE_CHANNEL = 'agent_spaces_run_queue';
/** First key of the two-key advisory locks that say a worker is alive (the second: hashtext of its id). */
export const LIVENESS_LOCK_SPACE = 0x41_53_57;
/**
 * The store's set-up lock (a two-key advisory lock): our DDL and DBOS's migration run under it, so
 * processes starting together on a fresh store take turns (see withSetupLock).
 */
const SETUP_LOCK: [number, number] = [LIVENESS_LOCK_SPACE + 1, 0];
/** How often a process waiting for the set-up lock tries it again. */
const SETUP_LOCK_RETRY_MS = 50;

const DDL = `
CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
CREATE TABLE IF NOT EXISTS ${SCHEMA}.workers (
  executor_id text PRIMARY KEY,
  host text NOT NULL,
  pid integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.call_journal (
  run_id text NOT NULL,
  call_key text NOT NULL,
  capability text NOT NULL,
  function text NOT NULL,
  args_hash text NOT NULL,
  occurrence integer NOT NULL,
  status text NOT NULL CHECK (status IN ('started', 'finished')),
  outcome text,
  executor_id text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, call_key)
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.approvals (
  id text PRIMARY KEY,
  run_id text NOT NULL,
  call_key text NOT NULL,
  capability text NOT NULL,
  function text NOT NULL,
  params text NOT NULL,
  message text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
  reason text,
  deadline timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  UNIQUE (run_id, call_key)
);
-- expireApprovals runs before every listing and at each waiting deadline: the pending ones with a deadline only.
CREATE INDEX IF NOT EXISTS approvals_pending_deadline ON ${SCHEMA}.approvals (deadline) WHERE status = 'pending' AND deadline IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${SCHEMA}.model_journal (
  task_id text NOT NULL,
  reply_index integer NOT NULL,
  reply text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (task_id, reply_index)
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.run_events (
  seq bigserial PRIMARY KEY,
  run_id text NOT NULL,
  kind text NOT NULL,
  data text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS run_events_by_run ON ${SCHEMA}.run_events (run_id, seq);
-- Retention (store/prune.ts) finds the runs that ended before its cutoff by their end event.
CREATE INDEX IF NOT EXISTS run_events_ends ON ${SCHEMA}.run_events (created_at) WHERE kind = 'end';
-- MCP sessions of serve replicas (store/serve-sessions.ts): a session opened on one replica is served by any.
CREATE TABLE IF NOT EXISTS ${SCHEMA}.serve_sessions (
  id text PRIMARY KEY,
  init text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen timestamptz NOT NULL DEFAULT now()
);
-- A2A tasks of served agents (store/a2a-task-store.ts): the task as A2A JSON, secrets redacted.
CREATE TABLE IF NOT EXISTS ${SCHEMA}.a2a_tasks (
  agent text NOT NULL,
  tenant text NOT NULL,
  owner text NOT NULL,
  task_id text NOT NULL,
  context_id text NOT NULL,
  state integer NOT NULL,
  status_timestamp text NOT NULL,
  task text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent, tenant, owner, task_id)
);
CREATE INDEX IF NOT EXISTS a2a_tasks_by_context ON ${SCHEMA}.a2a_tasks (agent, tenant, owner, context_id);
-- execute_agent sessions (store/agent-session-store.ts): earlier messages, secrets redacted.
CREATE TABLE IF NOT EXISTS ${SCHEMA}.agent_sessions (
  id text PRIMARY KEY,
  agent text NOT NULL,
  remote_context_id text,
  messages text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Session state (store/session-state.ts): small JSON values by scope and key, each until expires_at.
CREATE TABLE IF NOT EXISTS ${SCHEMA}.session_state (
  scope text NOT NULL,
  key text NOT NULL,
  value text NOT NULL,
  bytes integer NOT NULL,
  updated_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX IF NOT EXISTS session_state_expiry ON ${SCHEMA}.session_state (expires_at);
`;

export type Pool = pg.Pool;

export type Client = pg.Client;

/** A connection pool to the store; the first query says clearly when the database cannot be reached. */
export function createPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client losing its connection (the server restarted) must not crash the process: the
  // next query reports it.
  pool.on('error', () => undefined);
  return pool;
}

/** A statement PostgreSQL keeps per connection: named after its text, parsed once, its plan reused. */
export interface PreparedSql {
  name: string;
  text: string;
}

/**
 * `text` as a prepared statement (each connection parses it once, and after a few runs plans it once):
 * for the statements on every durable run's way, whose planning costs as much as their round trip. Only
 * for fixed texts — each distinct text stays prepared on every connection that ran it — whose result
 * columns are listed (a column added to a table would otherwise change a cached `*`).
 */
export function prepared(text: string): PreparedSql {
  let statement = preparedTexts.get(text);
  if (statement === undefined) {
    statement = { name: `agent_spaces_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
    preparedTexts.set(text, statement);
  }
  return statement;
}

/** The statements `prepared` named, by text: a text built at each call (the claim's) is hashed once. */
const preparedTexts = new Map<string, PreparedSql>();

export async function connectClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    throw storeUnavailable(url, error);
  }
  return client;
}

export function storeUnavailable(url: string, error: unknown): DurableError {
  return new DurableError('STORE_UNAVAILABLE', `the store ${describeStore(url)} cannot be reached: ${errorMessage(error)}`, {
    cause: error,
  });
}

/**
 * Creates our tables when missing, once per process and store URL (each submitRun or openApprovals
 * ran the DDL under its lock again before); a failed attempt is tried again by the next call.
 */
export const ensureStoreSchema: (url: string, pool: pg.Pool) => Promise<void> = oncePerStore(createStoreSchema);

/** Runs the DDL; concurrent starts (two workers at once) take turns. */
async function createStoreSchema(url: string, pool: pg.Pool): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw storeUnavailable(url, error);
  }
  let broken: Error | undefined;
  try {
    await withSetupLock(client, async () => {
      try {
        await client.query('BEGIN');
        await client.query(DDL);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  } catch (error) {
    // A connection that failed may still hold the lock: it is closed, not pooled.
    broken = error instanceof Error ? error : new Error(String(error));
    throw storeUnavailable(url, error);
  } finally {
    client.release(broken);
  }
}

/**
 * Runs `work` while `client`'s session holds the store's set-up lock, the one every set-up step of
 * the store (our DDL, DBOS's migration) runs under. The lock is waited for by trying it again every
 * few milliseconds, not by a blocking call: a session blocked on a lock is inside a statement, and
 * DBOS's migration creates indexes CONCURRENTLY, which waits for every statement in progress in the
 * database to end — the holder would wait for the waiters, which wait for the holder, and PostgreSQL
 * sees no deadlock (a part of the cycle is in the holder's process). Ending `client`'s session frees
 * the lock too (a process that dies holding it).
 */
export async function withSetupLock<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', SETUP_LOCK);
    if (rows[0]?.locked === true) break;
    await new Promise((resolve) => setTimeout(resolve, SETUP_LOCK_RETRY_MS));
  }
  try {
    return await work();
  } finally {
    await client.query('SELECT pg_advisory_unlock($1, $2)', SETUP_LOCK);
  }
}

/** A pool on a store whose tables are there (made when missing); the pool is closed again when that fails. */
export async function openStorePool(url: string, max: number): Promise<pg.Pool> {
  const pool = createPool(url, max);
  try {
    await ensureStoreSchema(url, pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return pool;
}

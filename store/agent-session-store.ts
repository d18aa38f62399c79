// execute_agent sessions in the store: a follow-up with a session id continues the session whichever
// process or replica takes it (the file store keeps them on one machine). Loaded only with a store.
import { randomUUID } from 'node:crypto';
import type { SecretInput } from '../core/index.js';
import { SCHEMA, storeUnavailable, type Pool } from './store.js';
import { createStoreWriter } from './store-writer.js';
import { describeStore } from './store-url.js';

/** The shape of agents' `AgentSession` (store/ does not import agents/; the CLI joins the two). */
export interface StoredAgentSession {
  id: string;
  agent: string;
  remoteContextId?: string;
  created: string;
  updated: string;
  messages: { role: 'user' | 'assistant'; content: string; timestamp: string }[];
}

export interface StoredAgentSessions {
  readonly location: string;
  newId(): string;
  get(id: string): Promise<StoredAgentSession | undefined>;
  /** Applies `change` to the session (created when missing) and saves it, in one transaction per session. */
  update(id: string, agent: string, change: (session: StoredAgentSession) => void): Promise<StoredAgentSession>;
  close(): Promise<void>;
}

interface SessionRow {
  id: string;
  agent: string;
  remote_context_id: string | null;
  messages: string;
  created_at: Date;
  updated_at: Date;
}

/**
 * The file store's rule for session ids (SESSION_ID_PATTERN of agents/orchestration/session-store.ts;
 * store/ does not import agents/): a caller's id is checked before anything runs, whichever store keeps it.
 */
const SESSION_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

function checkSessionId(id: string): void {
  if (!SESSION_ID.test(id)) {
    const shown = id.length > 40 ? `${id.slice(0, 40)}… (${id.length} characters)` : id;
    throw new Error(
      `session id ${JSON.stringify(shown)} is not valid: use 1–128 letters, digits, "_", "-" or "." (the ids execute_agent returns)`,
    );
  }
}

export function createStoredAgentSessions(pool: Pool, secrets: readonly SecretInput[], url: string): Omit<StoredAgentSessions, 'close'> {
  const writer = createStoreWriter(pool, secrets);
  return {
    location: `the store ${describeStore(url)}`,
    newId: () => `sess_${randomUUID().replaceAll('-', '')}`,
    async get(id) {
      checkSessionId(id);
      const { rows } = await pool.query<SessionRow>(`SELECT * FROM ${SCHEMA}.agent_sessions WHERE id = $1`, [id]);
      return rows[0] === undefined ? undefined : sessionOf(rows[0]);
    },
    async update(id, agent, change) {
      checkSessionId(id);
      const client = await pool.connect().catch((error: unknown) => {
        throw storeUnavailable(url, error);
      });
      try {
        await client.query('BEGIN');
        // Two replicas adding to one session take turns: the row lock holds the second until the first commits.
        await client.query(`INSERT INTO ${SCHEMA}.agent_sessions (id, agent, messages) VALUES ($1, $2, '[]') ON CONFLICT (id) DO NOTHING`, [
          id,
          agent,
        ]);
        const { rows } = await client.query<SessionRow>(`SELECT * FROM ${SCHEMA}.agent_sessions WHERE id = $1 FOR UPDATE`, [id]);
        const session = sessionOf(rows[0] as SessionRow);
        change(session);
        await writer.write(
          `UPDATE ${SCHEMA}.agent_sessions SET agent = $2, remote_context_id = $3, messages = $4, updated_at = now() WHERE id = $1`,
          [id, session.agent, session.remoteContextId ?? null, { json: session.messages }],
          client,
        );
        await client.query('COMMIT');
        return { ...session, messages: writer.redact(session.messages), updated: new Date().toISOString() };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

function sessionOf(row: SessionRow): StoredAgentSession {
  return {
    id: row.id,
    agent: row.agent,
    ...(row.remote_context_id ? { remoteContextId: row.remote_context_id } : {}),
    created: row.created_at.toISOString(),
    updated: row.updated_at.toISOString(),
    messages: JSON.parse(row.messages) as StoredAgentSession['messages'],
  };
}

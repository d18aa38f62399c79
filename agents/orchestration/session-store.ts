import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../core/index.js';

export interface SessionMessage {
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
}

export interface AgentSession {
  id: string;
  /** The agent the session talks to. */
  agent: string;
  /** A remote agent's A2A context id, so it keeps its own history too. */
  remoteContextId?: string;
  created: string;
  updated: string;
  messages: SessionMessage[];
}

/** Session ids are file names: letters, digits, `_`, `-`, `.`, at most 128, not starting with a dot. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** Where `execute_agent` sessions are kept: files (`createSessionStore`), or with a store its table (store/). */
export interface SessionStore {
  /** Where the sessions are, for messages: a folder, or the store. */
  readonly location: string;
  newId(): string;
  get(id: string): Promise<AgentSession | undefined>;
  /** Applies `change` to the session (created when missing) and saves it; changes to one session run one at a time. */
  update(id: string, agent: string, change: (session: AgentSession) => void): Promise<AgentSession>;
}

/**
 * Sessions as one JSON file each under `dir`. A save writes a temporary file, flushes it to disk and
 * renames it over the old one, so a crash leaves either the old or the new session, never half a file;
 * stray temporary files are ignored.
 */
export function createSessionStore(dir: string): SessionStore {
  const queues = new Map<string, Promise<unknown>>();
  const file = (id: string) => {
    if (!SESSION_ID_PATTERN.test(id)) throw new Error(`session id "${id}" is not valid: use 1–128 letters, digits, "_", "-" or "."`);
    return path.join(dir, `${id}.json`);
  };
  const get = async (id: string): Promise<AgentSession | undefined> => {
    let text: string;
    try {
      text = await readFile(file(id), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return JSON.parse(text) as AgentSession;
  };
  return {
    location: dir,
    newId: () => `sess_${randomUUID().replaceAll('-', '')}`,
    get,
    update(id, agent, change) {
      const target = file(id);
      const previous = queues.get(id) ?? Promise.resolve();
      const next = previous
        .catch(() => undefined)
        .then(async () => {
          const now = new Date().toISOString();
          const session = (await get(id)) ?? { id, agent, created: now, updated: now, messages: [] };
          change(session);
          session.updated = now;
          await writeFileAtomic(target, `${JSON.stringify(session, null, 2)}\n`, { sync: true });
          return session;
        });
      queues.set(id, next);
      void next
        .finally(() => {
          if (queues.get(id) === next) queues.delete(id);
        })
        .catch(() => undefined);
      return next;
    },
  };
}

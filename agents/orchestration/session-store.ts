import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';

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

export interface SessionStore {
  readonly dir: string;
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
    dir,
    newId: () => `sess_${randomUUID().replaceAll('-', '')}`,
    get,
    update(id, agent, change) {
      const target = file(id);
      const previous = queues.get(id) ?? Promise.resolve();
      const next = previous.catch(() => undefined).then(async () => {
        const now = new Date().toISOString();
        const session = (await get(id)) ?? { id, agent, created: now, updated: now, messages: [] };
        change(session);
        session.updated = now;
        await writeAtomically(target, `${JSON.stringify(session, null, 2)}\n`);
        return session;
      });
      queues.set(id, next);
      void next.finally(() => {
        if (queues.get(id) === next) queues.delete(id);
      }).catch(() => undefined);
      return next;
    },
  };
}

async function writeAtomically(target: string, content: string): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { openDbosClient } from './dbos-client.js';
import { liveWorkers } from './liveness.js';
import { parseRunEndNote, type RunEndNote } from './run-events.js';
import { createPool, ensureStoreSchema, RUN_ENDS_CHANNEL, RUN_EVENTS_CHANNEL, type Pool } from './store.js';
import { listenToStore } from './store-listener.js';

/**
 * The connections a submitter follows runs through: one pool (shared with DBOS's client), one LISTEN
 * connection that wakes the followers of a run when it has new events. A command submitting one run
 * opens its own; a serve replica opens one for all the runs it follows, so a followed run costs no
 * connection of its own (a caller cannot exhaust the store's connections by queuing runs).
 */
export interface StoreConnection {
  readonly url: string;
  readonly pool: Pool;
  readonly dbos: DBOSClient;
  /** Calls `wake` whenever the run may have new events (with its end, when the notification carried it); returns what stops it. */
  onRunEvents(runId: string, wake: RunWake): () => void;
  /** The ids of the workers alive now (one look at a time: a look is one statement on one of the pool's connections). */
  liveWorkers(): Promise<string[]>;
  close(): Promise<void>;
}

/** Wakes a follower of a run: `end` is the run's end when the notification carried it (RUN_ENDS_CHANNEL). */
export type RunWake = (end?: RunEndNote) => void;

/** The followers of runs, woken by one LISTEN connection on the run events and run ends channels. */
export interface RunFollowers {
  onRunEvents(runId: string, wake: RunWake): () => void;
  close(): Promise<void>;
}

/** Opens a pool of `poolSize` and the connections over it, all closed by `close`. */
export async function openStoreConnection(url: string, poolSize: number): Promise<StoreConnection> {
  const pool = createPool(url, poolSize);
  let followers: RunFollowers | undefined;
  try {
    await ensureStoreSchema(url, pool);
    followers = await followRunEvents(url);
    // The first submitter may come before any worker created DBOS's tables.
    const dbos = await openDbosClient(url, pool);
    const opened = followers;
    return storeConnection(url, pool, dbos, followers, async () => {
      await opened.close();
      await dbos.destroy().catch(() => undefined);
      await pool.end().catch(() => undefined);
    });
  } catch (error) {
    await followers?.close();
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/** A StoreConnection over connections opened already; `close` is what closing it closes. */
export function storeConnection(
  url: string,
  pool: Pool,
  dbos: DBOSClient,
  followers: RunFollowers,
  close: () => Promise<void>,
): StoreConnection {
  let looking: Promise<string[]> | undefined;
  return {
    url,
    pool,
    dbos,
    onRunEvents: (runId, wake) => followers.onRunEvents(runId, wake),
    liveWorkers() {
      looking ??= liveWorkers(pool).finally(() => (looking = undefined));
      return looking;
    },
    close,
  };
}

/** Listens to the run events and ends channels; each notification wakes the followers of its run. */
export async function followRunEvents(url: string): Promise<RunFollowers> {
  const followers = new Map<string, Set<RunWake>>();
  const wakeAll = (): void => {
    for (const wakes of followers.values()) for (const wake of wakes) wake();
  };
  const listener = await listenToStore(
    url,
    [RUN_EVENTS_CHANNEL, RUN_ENDS_CHANNEL],
    (payload, channel) => {
      const end = channel === RUN_ENDS_CHANNEL ? parseRunEndNote(payload) : undefined;
      if (channel === RUN_ENDS_CHANNEL && end === undefined) return;
      for (const wake of followers.get(end?.runId ?? payload) ?? []) wake(end);
    },
    // Notifications sent while the connection was down are lost: every follower looks again.
    wakeAll,
  );
  return {
    onRunEvents(runId, wake) {
      const wakes = followers.get(runId) ?? new Set<RunWake>();
      followers.set(runId, wakes);
      wakes.add(wake);
      return () => {
        wakes.delete(wake);
        if (wakes.size === 0) followers.delete(runId);
      };
    },
    close: () => listener.close(),
  };
}

import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { migrateDbosSchema } from './dbos-schema.js';
import { liveWorkers } from './liveness.js';
import { createPool, ensureStoreSchema, RUN_EVENTS_CHANNEL, storeUnavailable, type Pool } from './store.js';
import { listenToStore, type StoreListener } from './store-listener.js';
import { APPLICATION_NAME } from './workflow-names.js';

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
  /** Calls `wake` whenever the run may have new events; returns what stops it. */
  onRunEvents(runId: string, wake: () => void): () => void;
  /** The ids of the workers alive now (one look at a time: a look holds two of the pool's connections). */
  liveWorkers(): Promise<string[]>;
  close(): Promise<void>;
}

export async function openStoreConnection(url: string, poolSize: number): Promise<StoreConnection> {
  const pool = createPool(url, poolSize);
  const followers = new Map<string, Set<() => void>>();
  const wakeAll = (): void => {
    for (const wakes of followers.values()) for (const wake of wakes) wake();
  };
  let listener: StoreListener | undefined;

  try {
    await ensureStoreSchema(url, pool);
    listener = await listenToStore(
      url,
      [RUN_EVENTS_CHANNEL],
      (runId) => {
        for (const wake of followers.get(runId) ?? []) wake();
      },
      // Notifications sent while the connection was down are lost: every follower looks again.
      wakeAll,
    );
    let dbos: DBOSClient;
    try {
      // The first submitter may come before any worker created DBOS's tables.
      await migrateDbosSchema(url);
      dbos = await DBOSClient.create({ systemDatabaseUrl: url, systemDatabasePool: pool, applicationName: APPLICATION_NAME });
    } catch (error) {
      throw storeUnavailable(url, error);
    }
    let looking: Promise<string[]> | undefined;
    return {
      url,
      pool,
      dbos,
      onRunEvents(runId, wake) {
        const wakes = followers.get(runId) ?? new Set<() => void>();
        followers.set(runId, wakes);
        wakes.add(wake);
        return () => {
          wakes.delete(wake);
          if (wakes.size === 0) followers.delete(runId);
        };
      },
      liveWorkers() {
        looking ??= liveWorkers(pool).finally(() => (looking = undefined));
        return looking;
      },
      async close() {
        await listener?.close();
        await dbos.destroy().catch(() => undefined);
        await pool.end().catch(() => undefined);
      },
    };
  } catch (error) {
    await listener?.close();
    await pool.end().catch(() => undefined);
    throw error;
  }
}

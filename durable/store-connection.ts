import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { migrateDbosSchema } from './dbos-schema.js';
import { liveWorkers } from './liveness.js';
import { connectClient, createPool, ensureStoreSchema, RUN_EVENTS_CHANNEL, storeUnavailable, type Client, type Pool } from './store.js';
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

/** How long after losing its LISTEN connection (or failing to open another) a store connection tries again. */
const RELISTEN_MS = 1000;

export async function openStoreConnection(url: string, poolSize: number): Promise<StoreConnection> {
  const pool = createPool(url, poolSize);
  const followers = new Map<string, Set<() => void>>();
  let listener: Client | undefined;
  let relistening: NodeJS.Timeout | undefined;
  let closed = false;

  async function listen(): Promise<Client> {
    const client = await connectClient(url);
    client.on('error', () => lost(client));
    client.on('end', () => lost(client));
    client.on('notification', (message) => {
      for (const wake of followers.get(message.payload ?? '') ?? []) wake();
    });
    try {
      await client.query(`LISTEN ${RUN_EVENTS_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /**
   * The LISTEN connection ended (the store restarted, a proxy cut it): another is opened, or the
   * runs this process follows would only be looked at by their slow poll from then on.
   */
  function lost(client: Client): void {
    if (listener !== client) return;
    listener = undefined;
    void client.end().catch(() => undefined);
    relisten();
  }

  function relisten(): void {
    if (closed || relistening !== undefined) return;
    relistening = setTimeout(() => {
      listen().then(
        (client) => {
          relistening = undefined;
          if (closed) return void client.end().catch(() => undefined);
          listener = client;
          // Notifications sent while nobody listened are lost: every follower looks again.
          for (const wakes of followers.values()) for (const wake of wakes) wake();
        },
        () => {
          relistening = undefined;
          relisten();
        },
      );
    }, RELISTEN_MS);
    relistening.unref();
  }

  try {
    await ensureStoreSchema(url, pool);
    listener = await listen();
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
        closed = true;
        clearTimeout(relistening);
        await listener?.end().catch(() => undefined);
        await dbos.destroy().catch(() => undefined);
        await pool.end().catch(() => undefined);
      },
    };
  } catch (error) {
    closed = true;
    await listener?.end().catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw error;
  }
}

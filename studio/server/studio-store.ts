import {
  describeStore,
  openStore,
  resolveStoreUrl,
  type DurableRunEvent,
  type StoreConnection,
  type StoreMonitor,
} from '../../store/index.js';
import type { EventHub } from './studio-events.js';
import { createStoreInbox, type StoreInbox } from './store-inbox.js';

/** The durable runs' store as the studio uses it (see `StudioContext.store`). */
export interface StudioStore {
  /** The store's URL, password included: for the library's calls, never shown. */
  url: string;
  /** The URL without its password, for the page. */
  label: string;
  monitor: StoreMonitor;
  /** One pool and one LISTEN connection for every run and task the playground submits and follows. */
  connection: StoreConnection;
  inbox: StoreInbox;
  /** Aborted when the studio closes: it stops waiting for its runs (they stay in the store and run on). */
  signal: AbortSignal;
  close(): Promise<void>;
}

/**
 * Opens the store named by the studio's option, else the config's `store`, else
 * `$AGENT_SPACES_STORE`; undefined when none is set (the studio runs everything itself, as ever).
 * A store that cannot be reached fails the start (STORE_UNAVAILABLE), as `run --store` does.
 */
export async function openStudioStore(
  sources: { option?: string | undefined; config?: string | undefined },
  events: EventHub,
  redact: <T>(value: T) => T,
): Promise<StudioStore | undefined> {
  const url = resolveStoreUrl({
    ...(sources.option ? { option: sources.option } : {}),
    ...(sources.config ? { config: sources.config } : {}),
  });
  if (url === undefined) return undefined;
  // One store for the monitor and the playground's runs: one pool, one DBOS client, its LISTEN connections.
  const store = await openStore(url, { poolSize: 8 });
  const connection = await store.connection().catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const monitor = store.monitor;
  const inbox = createStoreInbox(url, monitor, events, redact);
  const stopping = new AbortController();
  return {
    url,
    label: describeStore(url),
    monitor,
    connection,
    inbox,
    signal: stopping.signal,
    async close() {
      stopping.abort();
      await store.close();
    },
  };
}

/** What `submitRun` / `submitTask` take to follow one playground run, and what it learnt. */
export interface FollowedRun {
  signal: AbortSignal;
  onEvent(event: DurableRunEvent): void;
  onNoWorker(): void;
  /** The worker that took the run last, and its attempt (more than 1: taken over). */
  readonly worker: { executorId: string; attempts: number } | undefined;
  /** The run ended (or the studio stopped waiting): lets go of the studio's signal. */
  done(): void;
}

/**
 * Turns a stored run's events into the page's: its log lines, the worker taking it (or taking it
 * over), no worker alive; its approvals wake the inbox; a planner task's steps go to `onPlanner`.
 * Its own signal, ended with the studio, keeps listeners from piling up on the studio's.
 */
export function followStoredRun(
  store: StudioStore,
  events: EventHub,
  redact: <T>(value: T) => T,
  runId: string,
  onPlanner?: (event: unknown) => void,
): FollowedRun {
  const leave = new AbortController();
  const stop = (): void => leave.abort();
  store.signal.addEventListener('abort', stop, { once: true });
  let worker: FollowedRun['worker'];
  return {
    signal: leave.signal,
    get worker() {
      return worker;
    },
    onEvent(event) {
      switch (event.kind) {
        case 'log':
          events.publish({ type: 'run-log', runId, level: event.log.level, message: redact(event.log).message });
          return;
        case 'started':
          worker = { executorId: event.executorId, attempts: event.attempt };
          events.publish({
            type: 'run-started',
            runId,
            executorId: event.executorId,
            attempt: event.attempt,
            replayedCalls: event.replayedCalls,
          });
          return;
        case 'approval-required':
        case 'approval-decided':
          store.inbox.refresh();
          return;
        case 'planner':
          onPlanner?.(event.event);
          return;
        case 'end':
          return;
      }
    },
    onNoWorker: () => events.publish({ type: 'run-waiting-for-worker', runId, store: store.label }),
    done: () => store.signal.removeEventListener('abort', stop),
  };
}

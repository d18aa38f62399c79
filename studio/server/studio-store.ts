import { describeStore, openStoreMonitor, resolveStoreUrl, type StoreMonitor } from '../../durable/index.js';
import type { EventHub } from './studio-events.js';
import { createStoreInbox, type StoreInbox } from './store-inbox.js';

/** The durable runs' store as the studio uses it (see `StudioContext.store`). */
export interface StudioStore {
  /** The store's URL, password included: for the library's calls, never shown. */
  url: string;
  /** The URL without its password, for the page. */
  label: string;
  monitor: StoreMonitor;
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
export async function openStudioStore(sources: { option?: string | undefined; config?: string | undefined }, events: EventHub, redact: <T>(value: T) => T): Promise<StudioStore | undefined> {
  const url = resolveStoreUrl({ ...(sources.option ? { option: sources.option } : {}), ...(sources.config ? { config: sources.config } : {}) });
  if (url === undefined) return undefined;
  const monitor = await openStoreMonitor(url);
  const inbox = createStoreInbox(url, monitor, events, redact);
  const stopping = new AbortController();
  return {
    url,
    label: describeStore(url),
    monitor,
    inbox,
    signal: stopping.signal,
    async close() {
      stopping.abort();
      await monitor.close();
    },
  };
}

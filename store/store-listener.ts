import { connectClient, storeUnavailable, type Client } from './store.js';

/** How long after losing its connection (or failing to open another) a listener tries again. */
const RELISTEN_MS = 1000;

export interface StoreListener {
  close(): Promise<void>;
}

/**
 * One LISTEN connection to the store's `channels`, kept open: when it ends (the store restarted, a
 * proxy cut it) another is opened, every second until one works, and `onReconnect` is called then —
 * notifications sent while nobody listened are lost, so whoever waits on them should look again.
 * Fails with STORE_UNAVAILABLE when the first connection cannot be opened.
 */
export async function listenToStore(
  url: string,
  channels: readonly string[],
  onNotification: (payload: string, channel: string) => void,
  onReconnect: () => void,
): Promise<StoreListener> {
  let current: Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  async function open(): Promise<Client> {
    const client = await connectClient(url);
    client.on('error', () => lost(client));
    client.on('end', () => lost(client));
    client.on('notification', (message) => onNotification(message.payload ?? '', message.channel));
    try {
      for (const channel of channels) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      // Not listening: its connection goes too, or every failed attempt would leave one open.
      await client.end().catch(() => undefined);
      throw storeUnavailable(url, error);
    }
    return client;
  }

  function lost(client: Client): void {
    if (current !== client) return;
    current = undefined;
    void client.end().catch(() => undefined);
    reopen();
  }

  function reopen(): void {
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      open().then(
        (client) => {
          retry = undefined;
          if (closed) return void client.end().catch(() => undefined);
          current = client;
          onReconnect();
        },
        () => {
          retry = undefined;
          reopen();
        },
      );
    }, RELISTEN_MS);
    retry.unref();
  }

  current = await open();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await current?.end().catch(() => undefined);
    },
  };
}

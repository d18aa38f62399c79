import type { AgentCard } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { readBodyUpTo } from '../../core/index.js';

/** A remote agent reached over A2A. */
export interface RemoteAgent {
  url: string;
  card: AgentCard;
  /** Sends one blocking message; resolves to the answer text and the context the server kept. */
  send(text: string, options?: { contextId?: string; signal?: AbortSignal }): Promise<{ text: string; contextId: string }>;
}

/** Fetches the agent card at `<url>/.well-known/agent-card.json` and connects with the SDK's client. */
export async function connectA2AAgent(url: string): Promise<RemoteAgent> {
  const base = url.endsWith('/') ? url : `${url}/`;
  // The A2A SDK (and our helpers over it) load with the first connection, not with the package.
  const [sdk, { answerOf, userTextMessage }] = await Promise.all([import('@a2a-js/sdk/client'), import('./a2a-message.js')]);
  const { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } = sdk;
  // A remote agent is untrusted: its card and its answers are read up to a size (and the card within a
  // time), so a hostile or broken server cannot fill the host's memory or stall a build. Messages go only
  // to the origin the config names: a card that points its interfaces (or a redirect) at another host is
  // refused at the first message, before anything is sent there (docs/SECURITY.md).
  const answers = boundedFetch(MAX_ANSWER_BYTES, undefined, new URL(base).origin);
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: answers }), new RestTransportFactory({ fetchImpl: answers })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: boundedFetch(MAX_CARD_BYTES, CARD_TIMEOUT_MS) }),
  });
  const client: Client = await new ClientFactory(options).createFromUrl(base);
  const card = await client.getAgentCard();
  return {
    url: base,
    card,
    async send(text, options = {}) {
      const result = await client.sendMessage(
        { tenant: '', message: userTextMessage(text, options.contextId ?? ''), configuration: undefined, metadata: {} },
        options.signal ? { signal: options.signal } : undefined,
      );
      return { text: answerOf(result), contextId: result.contextId };
    },
  };
}

/** An agent card larger than this is refused (cards are a few kilobytes). */
const MAX_CARD_BYTES = 256 * 1024;
/** An answer larger than this is refused (the bridge passes at most 1 MiB of a result on anyway). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** The card must arrive within this time; answers are bounded by the run's own time limit. */
const CARD_TIMEOUT_MS = 10_000;

/**
 * `fetch` that reads a response's body itself, up to `maxBytes`: past that it stops reading, closes the
 * connection and fails with what happened, instead of buffering whatever the server sends.
 */
function boundedFetch(maxBytes: number, timeoutMs?: number, origin?: string): typeof fetch {
  return async (input, init) => {
    if (origin !== undefined) {
      const target = new URL(urlOf(input));
      if (target.origin !== origin) {
        throw new Error(
          `the A2A agent's card directs messages to ${target.origin}, not to ${origin} where the config names the agent; messages go only to the configured origin (list the agent by the URL it is served at)`,
        );
      }
    }
    const signals = [init?.signal ?? undefined, timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)].filter(
      (signal) => signal !== undefined,
    );
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    // With an origin to keep, a redirect elsewhere is refused too (fetch would follow it silently).
    const response = await fetch(input, {
      ...init,
      ...(signal ? { signal } : {}),
      ...(origin !== undefined ? { redirect: 'error' as const } : {}),
    });
    const body = await readBodyUpTo(response, maxBytes);
    if (body === undefined) throw new Error(`the A2A agent at ${urlOf(input)} sent more than ${maxBytes} bytes; the answer was refused`);
    // An empty body is passed on as none: a 204 (or 205, 304) Response refuses any body, even an empty one.
    return new Response(body.length === 0 ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function urlOf(input: Parameters<typeof fetch>[0]): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

import type { AgentCard } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';

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
  const [{ ClientFactory }, { answerOf, userTextMessage }] = await Promise.all([import('@a2a-js/sdk/client'), import('./a2a-message.js')]);
  const client: Client = await new ClientFactory().createFromUrl(base);
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

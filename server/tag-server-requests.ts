import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

/**
 * Gives the server→client requests of a shared session (elicitations: approvals) ids of this instance's
 * own — a random tag before the SDK's counter — and hands back only the answers that carry the tag. The
 * instances of one session on several replicas each count their requests from 0: an answer the load
 * balancer sends to another replica must not settle that replica's request of the same number (the
 * answer to one call's approval would decide another call's). Such an answer is dropped, and said so.
 */
export function tagServerRequests(transport: Transport, sessionId: string, log: (line: string) => void): void {
  const tag = `${randomUUID().slice(0, 8)}:`;
  const send = transport.send.bind(transport);
  transport.send = (message, options) =>
    send(isRequestMessage(message) ? { ...message, id: `${tag}${JSON.stringify(message.id)}` } : message, options);
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (!isResponseMessage(message)) return receive?.(message, extra);
    const id =
      typeof message.id === 'string' && message.id.startsWith(tag)
        ? (JSON.parse(message.id.slice(tag.length)) as number | string)
        : undefined;
    if (id === undefined) {
      log(
        `MCP session ${sessionId}: dropped an answer to a request this replica did not send (id ${JSON.stringify(message.id)}); with several replicas, route a session's requests to one of them`,
      );
      return;
    }
    receive?.({ ...message, id } as JSONRPCMessage, extra);
  };
}

function isRequestMessage(message: JSONRPCMessage): message is Extract<JSONRPCMessage, { method: string; id: unknown }> {
  return 'method' in message && 'id' in message;
}

function isResponseMessage(message: JSONRPCMessage): message is Extract<JSONRPCMessage, { id: unknown }> & { id: number | string } {
  return !('method' in message) && 'id' in message && ('result' in message || 'error' in message);
}

import type { ServerResponse } from 'node:http';
import { discardBody, type Refusal } from './http-guard.js';

/**
 * Answers with a JSON-RPC error and closes the connection. What is left of the request's body is read
 * and thrown away first (bounded: `discardBody`), or the close would reset the connection under the
 * answer of a client still writing; the connection is not kept for another request.
 */
export function refuse(response: ServerResponse, refusal: Refusal): Promise<void> {
  response.setHeader('connection', 'close');
  return discardBody(response.req).then(() =>
    reply(response, refusal.status, { jsonrpc: '2.0', error: { code: refusal.code, message: refusal.message }, id: null }),
  );
}

/** Answers with a JSON body, unless an answer was already started or the connection is gone. */
export function reply(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

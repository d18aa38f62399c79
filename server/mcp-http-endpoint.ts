import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as NodeSdk from '@modelcontextprotocol/node';
import type { NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import type * as ServerSdk from '@modelcontextprotocol/server';
import { checkHostAndOrigin, hasBearerToken, readJsonBody, type Refusal } from './http-guard.js';
import type { McpSession, McpSessions, SharedSessions } from './mcp-sessions.js';
import { refuse } from './refuse.js';

export interface McpHttpEndpointOptions {
  sessions: McpSessions;
  limits: { maxRequestsPerSession: number; maxStatelessRequests: number; maxBodyBytes: number };
  /** Whether the server is bound to loopback (then requests addressed to another host are refused). */
  loopback: boolean;
  token: string | undefined;
  shared: SharedSessions | undefined;
  /** Serves a 2026-07-28 request: an MCP server instance of its own. */
  serveModern: NodeMcpRequestHandler;
  /** The SDK's modules, loaded when the server starts. */
  sdk: { node: typeof NodeSdk; server: typeof ServerSdk };
}

/**
 * The front guards of every request, whatever its path: Host/Origin (DNS rebinding, web pages), then the
 * bearer token when there is one.
 */
export function guardRequest(request: IncomingMessage, loopback: boolean, token: string | undefined): Refusal | undefined {
  const guarded = checkHostAndOrigin(request, loopback);
  if (guarded) return guarded;
  if (token && !hasBearerToken(request, token)) return { status: 401, code: -32001, message: 'missing or wrong bearer token' };
  return undefined;
}

/**
 * Every HTTP request to one MCP endpoint (`/mcp`, or a space's `/spaces/<name>/mcp`; the server picks it by path): the guards (Host/Origin, bearer token), then a request of a session
 * (counted against the session's cap, batches by their requests), an `initialize` that starts one, or a
 * 2026-07-28 request with no session (counted against the cap of those).
 */
export class McpHttpEndpoint {
  readonly #options: McpHttpEndpointOptions;
  #statelessOpen = 0;

  constructor(options: McpHttpEndpointOptions) {
    this.#options = options;
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { token, sessions, sdk, limits } = this.#options;
    const guarded = guardRequest(request, this.#options.loopback, token);
    if (guarded) return refuse(response, guarded);

    const sessionId = request.headers['mcp-session-id'];
    if (sessionId !== undefined) return this.#serveInSession(sessionId, request, response);

    const body = await this.#readBody(request);
    if (body && 'refusal' in body) return refuse(response, body.refusal);
    const isLegacy = await sdk.server.isLegacyRequest(await sdk.node.toWebRequest(request, body?.value), body?.value, {
      maxRequestBodySize: limits.maxBodyBytes,
    });
    if (!isLegacy) return this.#serveStateless(request, response, body?.value);
    if (request.method !== 'POST' || !sdk.server.isInitializeRequest(body?.value)) {
      return refuse(response, {
        status: 400,
        code: -32000,
        message:
          "no session: a 2025-11-25 client sends initialize first (without an mcp-session-id header); a 2026-07-28 client sends its protocol version, capabilities and info in each request's _meta (start with server/discover)",
      });
    }
    return sessions.initialize(request, response, body?.value);
  }

  /** A request naming a session: refused unless the session is found and has room for it (a batch counts its requests). */
  async #serveInSession(sessionId: string | string[], request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { limits, shared } = this.#options;
    const found = typeof sessionId === 'string' ? await this.#options.sessions.find(sessionId) : undefined;
    if (!found) {
      return refuse(response, {
        status: 404,
        code: -32001,
        message: 'session not found: it was closed, evicted or never existed; start a new one with initialize (no mcp-session-id header)',
      });
    }
    if ('status' in found) return refuse(response, found);
    const session: McpSession = found;
    if (session.open >= limits.maxRequestsPerSession) {
      return refuse(response, {
        status: 429,
        code: -32000,
        message: `too many requests open in this session (at most ${limits.maxRequestsPerSession}); wait for one to finish`,
      });
    }
    // Counted from before the body is read, so slow bodies count against the session too.
    let counted = 1;
    session.open++;
    session.lastSeen = performance.now();
    response.once('close', () => {
      session.open -= counted;
      session.lastSeen = performance.now();
      // A request that stayed open long (a run waiting for approval) counts as use until it ends, for every replica.
      if (shared) {
        void shared.touch(session.id).then(
          (seen) => {
            if (seen) session.sharedSeen = seen.seen;
          },
          () => undefined,
        );
      }
    });
    const body = await this.#readBody(request);
    if (body && 'refusal' in body) return refuse(response, body.refusal);
    // A JSON-RPC batch (the session transport takes up to 100 messages) is as many requests as it
    // carries: one POST of 100 execute_code calls must not start 100 runs against a cap of 16.
    const batched = requestsIn(body?.value);
    if (batched > 1) {
      if (session.open - 1 + batched > limits.maxRequestsPerSession) {
        return refuse(response, {
          status: 429,
          code: -32000,
          message: `a batch of ${batched} requests does not fit in this session (at most ${limits.maxRequestsPerSession} requests open at once, ${session.open - 1} open); send fewer at once`,
        });
      }
      session.open += batched - 1;
      counted = batched;
    }
    return session.serve(request, response, body?.value);
  }

  /** A 2026-07-28 request: no session, an instance of its own; counted against the cap of such requests open at once. */
  async #serveStateless(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const { maxStatelessRequests } = this.#options.limits;
    if (this.#statelessOpen >= maxStatelessRequests) {
      return refuse(response, {
        status: 429,
        code: -32000,
        message: `too many requests open without a session (at most ${maxStatelessRequests}); wait for one to finish`,
      });
    }
    this.#statelessOpen++;
    response.once('close', () => this.#statelessOpen--);
    await this.#options.serveModern(request, response, body);
  }

  #readBody(request: IncomingMessage): Promise<{ value: unknown } | { refusal: Refusal }> | undefined {
    return request.method === 'POST' ? readJsonBody(request, this.#options.limits.maxBodyBytes) : undefined;
  }
}

/** The JSON-RPC requests (messages with a method and an id) a body carries: a batch's, or 0 or 1. */
function requestsIn(body: unknown): number {
  const isRequest = (message: unknown): boolean =>
    typeof message === 'object' && message !== null && 'method' in message && 'id' in message;
  return Array.isArray(body) ? body.filter(isRequest).length : isRequest(body) ? 1 : 0;
}

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeIncomingMessageLike, NodeMcpRequestHandler, NodeServerResponseLike } from '@modelcontextprotocol/node';
import type { JSONRPCMessage, McpServer, Server, Transport } from '@modelcontextprotocol/server';
import { errorMessage } from '../core/index.js';
import { checkHostAndOrigin, discardBody, hasBearerToken, MAX_BODY_BYTES, readJsonBody, type Refusal } from './http-guard.js';
import { resolveBindAddress, type BindAddress } from './loopback.js';
import { ServeError } from './serve-error.js';

/** The limits of `serveMcp` over HTTP when not configured (see docs/security/serve.md). */
export const DEFAULT_HTTP_LIMITS = {
  sessionIdleMs: 30 * 60 * 1000,
  maxSessions: 64,
  maxRequestsPerSession: 16,
  maxBodyBytes: MAX_BODY_BYTES,
  requestTimeoutMs: 30_000,
  maxHeaderBytes: 16 * 1024,
  maxStatelessRequests: 64,
} as const;

/** What `serveMcp` serves: the SDK's (v2) `McpServer` or low-level `Server`, made once per session, stdio connection or 2026-07-28 request. */
export type ConnectableMcpServer = McpServer | Server;

export interface McpHttpOptions {
  port: number;
  /**
   * Default 127.0.0.1. Without `token` only a loopback address is accepted (127.0.0.0/8, ::1, or a name
   * such as `localhost` that resolves to loopback only); on loopback, requests addressed to another host
   * (DNS rebinding) are refused.
   */
  host?: string;
  /** Require `Authorization: Bearer <token>` (compared in constant time). Needed to bind a non-loopback address. */
  token?: string;
  /** A session with no request open for this long is closed (clients that vanish never send DELETE). Default 30 min. */
  sessionIdleMs?: number;
  /** Live sessions at most; a new one evicts the longest-idle session, or is refused (503) when all are busy. Default 64. */
  maxSessions?: number;
  /** Requests open at once in one session; more are refused (429). Default 16. */
  maxRequestsPerSession?: number;
  /** Largest request body, in bytes (413 beyond). Default 4 MiB. */
  maxBodyBytes?: number;
  /** The whole request, headers and body, must arrive within this (408 and the connection closed otherwise). Default 30 s. */
  requestTimeoutMs?: number;
  /** Largest request head (request line and headers), in bytes (431 beyond). Default 16 KiB. */
  maxHeaderBytes?: number;
  /** Requests of 2026-07-28 clients (which have no session) open at once; more are refused (429). Default 64. */
  maxStatelessRequests?: number;
}

/**
 * Where replicas behind a load balancer share their 2025-11-25 sessions (a store's table): a session
 * initialized on one replica is served by any replica that finds it here. `record` and `touch` mark a
 * session as seen (and give that `seen` mark); `touch` gives its `initialize` parameters, or `undefined`
 * when it is unknown, closed or idle too long; `release` forgets a session this replica let go of unless
 * another saw it since; `remove` forgets it (closed by its client).
 */
export interface SharedSessions {
  record(id: string, init: unknown): Promise<string>;
  touch(id: string): Promise<{ init: unknown; seen: string } | undefined>;
  release(id: string, seen: string): Promise<void>;
  remove(id: string): Promise<void>;
}

/** The largest `initialize` parameters a shared session keeps (client info and capabilities are far smaller). */
const MAX_SHARED_INIT_CHARS = 64 * 1024;

export interface McpServeOptions {
  /** Streamable HTTP at `http://<host>:<port>/mcp` instead of stdio. */
  http?: McpHttpOptions;
  /** Share 2025-11-25 sessions with other replicas (HTTP only): see `SharedSessions`. */
  sharedSessions?: SharedSessions;
  /** Log lines (stderr in the CLI; never stdout, which is the protocol on stdio). */
  log?: (line: string) => void;
}

export interface RunningMcpServer {
  /** For HTTP: the endpoint actually bound (port 0 picks a free one). */
  url?: string;
  close(): Promise<void>;
}

interface Session {
  id: string;
  server: ConnectableMcpServer;
  /** Hands one HTTP request of the session to its transport. */
  serve: (request: IncomingMessage, response: ServerResponse, body: unknown) => Promise<void>;
  lastSeen: number;
  /** Requests of this session still being answered (an SSE stream stays open for long). */
  open: number;
  /** With shared sessions: when this replica last saw the session in the store. */
  sharedSeen?: string;
}

/**
 * Resolves the address `serveMcp` would bind for these options, refusing (`ServeError`) an address that
 * is not loopback when there is no token. Callers with expensive setup check this before it.
 */
export async function resolveHttpBind(http: Pick<McpHttpOptions, 'host' | 'token'>): Promise<BindAddress> {
  const host = http.host ?? '127.0.0.1';
  let bind: BindAddress;
  try {
    bind = await resolveBindAddress(host);
  } catch (error) {
    throw new ServeError(
      'SERVE_BIND_FAILED',
      `cannot bind host "${host}": ${errorMessage(error)}; pass an IP address or a name this machine resolves`,
      { cause: error },
    );
  }
  if (!bind.loopback && !http.token) {
    throw new ServeError(
      'SERVE_UNSAFE_BIND',
      `refusing to serve on "${host}" without a token: it is not a loopback address, so anyone who can reach it could run code in this space. Pass --token <secret> (or set AGENT_SPACES_SERVE_TOKEN), or bind to loopback (--host 127.0.0.1)`,
      { details: { host, address: bind.address ?? '(every interface)' } },
    );
  }
  return bind;
}

/**
 * Serves MCP servers made by `create` to clients of both protocol eras, on stdio or Streamable HTTP
 * (same command, same port). 2026-07-28 clients (`server/discover`, every request carrying its version
 * and capabilities in `_meta`, no session) get an instance per request; 2025-11-25 clients
 * (`initialize`) get an instance per session — a real session, never the SDK's stateless fallback, which
 * would turn every elicitation (every approval) into an error. Over HTTP, with the hardening every
 * server of ours needs: loopback-only unless there is a token, Host/Origin checks against DNS rebinding
 * and web pages, a constant-time bearer token, caps on body, header, request time, sessions, requests
 * per session and requests without a session, and idle sessions closed.
 */
export async function serveMcp(
  create: () => ConnectableMcpServer | Promise<ConnectableMcpServer>,
  options: McpServeOptions = {},
): Promise<RunningMcpServer> {
  const log = options.log ?? (() => undefined);
  const http = options.http;
  // The SDK's transports load when a server starts, not with the package.
  if (!http) {
    const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
    // The opening message picks the era; one instance serves the connection from then on.
    const handle = serveStdio(() => create(), { onerror: (error) => log(`MCP stdio: ${errorMessage(error)}`) });
    return { close: () => handle.close() };
  }
  const limits = { ...DEFAULT_HTTP_LIMITS, ...definedOnly(http) };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0)
      throw new RangeError(`serveMcp: http.${name} must be a positive integer (got ${String(value)})`);
  }
  const bind = await resolveHttpBind(http);
  const shared = options.sharedSessions;
  const [
    { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest },
    { createMcpHandler, isInitializeRequest, isLegacyRequest, WebStandardStreamableHTTPServerTransport },
  ] = await Promise.all([import('@modelcontextprotocol/node'), import('@modelcontextprotocol/server')]);
  const sessions = new Map<string, Session>();
  /** Sessions of other replicas being taken up here (two requests of one session at once restore it once). */
  const restoring = new Map<string, Promise<Session | Refusal>>();
  let starting = 0;
  let statelessOpen = 0;
  // 2026-07-28 requests: an instance per request. Legacy requests never reach this handler ('reject'):
  // they are routed to sessions below.
  const modern = createMcpHandler(() => create(), {
    legacy: 'reject',
    maxRequestBodySize: limits.maxBodyBytes,
    onerror: (error) => log(`MCP request refused: ${errorMessage(error)}`),
  });
  const serveModern: NodeMcpRequestHandler = toNodeHandler(modern, {
    maxRequestBodySize: limits.maxBodyBytes,
    onerror: (error) => log(`MCP request failed: ${errorMessage(error)}`),
  });

  /** Closes this replica's copy of a session; resolves once a shared session's row is released too. */
  function closeSession(session: Session, reason: string): Promise<void> {
    if (sessions.get(session.id) !== session) return Promise.resolve();
    sessions.delete(session.id);
    log(`MCP session ${session.id} closed: ${reason}`);
    void session.server.close().catch(() => undefined);
    // Evicted or idle here: its row goes too, unless another replica has used the session since. So the
    // store holds no more sessions than the replicas' caps, however many initializes arrive.
    if (shared && session.sharedSeen !== undefined) {
      return shared
        .release(session.id, session.sharedSeen)
        .catch((error: unknown) =>
          log(`MCP session ${session.id}: could not release it in the shared session store: ${errorMessage(error)}`),
        );
    }
    return Promise.resolve();
  }

  /**
   * Makes room for one more session: evicts the longest-idle session with no request open, if need be
   * (resolved once it is released in the shared store); `false` when every session is busy.
   */
  function makeRoom(): Promise<void> | false {
    if (sessions.size + starting < limits.maxSessions) return Promise.resolve();
    let idlest: Session | undefined;
    for (const session of sessions.values()) {
      if (session.open === 0 && (!idlest || session.lastSeen < idlest.lastSeen)) idlest = session;
    }
    if (!idlest) return false;
    return closeSession(idlest, `evicted, the longest idle of ${limits.maxSessions} sessions (the cap) when a new one started`);
  }

  const sweeper = setInterval(
    () => {
      const now = performance.now();
      for (const session of sessions.values()) {
        if (session.open === 0 && now - session.lastSeen > limits.sessionIdleMs)
          void closeSession(session, `idle for more than ${limits.sessionIdleMs} ms`);
      }
    },
    Math.max(10, Math.min(limits.sessionIdleMs / 2, 60_000)),
  );
  sweeper.unref();

  const httpServer: HttpServer = createServer(
    {
      // Node answers these itself: 408 for a request (headers and body) slower than requestTimeout, 431 for a large head.
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.requestTimeoutMs, 10_000),
      connectionsCheckingInterval: Math.max(10, Math.min(limits.requestTimeoutMs / 4, 1000)),
      maxHeaderSize: limits.maxHeaderBytes,
    },
    (request, response) => {
      handle(request, response).catch((error: unknown) => {
        log(`HTTP request failed: ${errorMessage(error)}`);
        if (!response.headersSent) reply(response, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null });
      });
    },
  );

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') return refuse(response, { status: 404, code: -32000, message: 'not found: the MCP endpoint is /mcp' });
    const guarded = checkHostAndOrigin(request, bind.loopback);
    if (guarded) return refuse(response, guarded);
    if (http?.token && !hasBearerToken(request, http.token))
      return refuse(response, { status: 401, code: -32001, message: 'missing or wrong bearer token' });

    const sessionId = request.headers['mcp-session-id'];
    if (sessionId !== undefined) {
      const found = typeof sessionId === 'string' ? await findSession(sessionId) : undefined;
      if (!found) {
        return refuse(response, {
          status: 404,
          code: -32001,
          message: 'session not found: it was closed, evicted or never existed; start a new one with initialize (no mcp-session-id header)',
        });
      }
      if ('status' in found) return refuse(response, found);
      const session = found;
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
      const body = await readBody(request);
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

    const body = await readBody(request);
    if (body && 'refusal' in body) return refuse(response, body.refusal);
    if (!(await isLegacyRequest(await toWebRequest(request, body?.value), body?.value, { maxRequestBodySize: limits.maxBodyBytes }))) {
      return serveStateless(request, response, body?.value);
    }
    if (request.method !== 'POST' || !isInitializeRequest(body?.value)) {
      return refuse(response, {
        status: 400,
        code: -32000,
        message:
          "no session: a 2025-11-25 client sends initialize first (without an mcp-session-id header); a 2026-07-28 client sends its protocol version, capabilities and info in each request's _meta (start with server/discover)",
      });
    }
    const init = (body?.value as { params?: unknown }).params;
    // Refused before it makes room: a request that starts no session must evict none.
    if (shared && JSON.stringify(init ?? {}).length > MAX_SHARED_INIT_CHARS) {
      return refuse(response, {
        status: 400,
        code: -32600,
        message: `the initialize parameters are larger than ${MAX_SHARED_INIT_CHARS} characters: too large to share the session with the other replicas`,
      });
    }
    const room = makeRoom();
    if (!room) {
      response.setHeader('retry-after', '5');
      return refuse(response, TOO_MANY_SESSIONS());
    }
    // Counted before the first await, so concurrent initializes cannot overshoot the cap.
    starting++;
    try {
      await room;
      const id = randomUUID();
      let sharedSeen: string | undefined;
      if (shared) {
        // Recorded before the client learns the id: its next request may reach another replica first.
        const recorded = await recordShared(id, init);
        if ('status' in recorded) return refuse(response, recorded);
        sharedSeen = recorded.seen;
      }
      await startSession(id, await create(), request, response, body?.value, sharedSeen);
    } finally {
      starting--;
    }
  }

  function TOO_MANY_SESSIONS(): Refusal {
    return {
      status: 503,
      code: -32000,
      message: `too many sessions: all ${limits.maxSessions} are busy with open requests; retry later, or close sessions you no longer use (DELETE /mcp)`,
    };
  }

  /**
   * The session a request names: this process's own, or (with shared sessions) one another replica
   * opened, taken up here. With shared sessions every request also asks the store whether the session
   * is still open (closed on another replica, or idle too long, it is closed here too) and marks it seen.
   */
  async function findSession(id: string): Promise<Session | Refusal | undefined> {
    const local = sessions.get(id);
    if (!shared) return local;
    let touched: { init: unknown; seen: string } | undefined;
    try {
      touched = await shared.touch(id);
    } catch (error) {
      log(`MCP session ${id}: the shared session store failed: ${errorMessage(error)}`);
      return { status: 503, code: -32000, message: 'the session store (shared by the replicas) cannot be reached; retry later' };
    }
    if (touched === undefined) {
      if (local) void closeSession(local, 'closed on another replica, or idle for too long');
      return undefined;
    }
    if (local) {
      local.sharedSeen = touched.seen;
      return local;
    }
    const pending = restoring.get(id) ?? restoreSession(id, touched.init, touched.seen).finally(() => restoring.delete(id));
    restoring.set(id, pending);
    return pending;
  }

  async function recordShared(id: string, init: unknown): Promise<{ seen: string } | Refusal> {
    try {
      return { seen: (await shared?.record(id, init)) ?? '' };
    } catch (error) {
      log(`MCP session ${id}: the shared session store failed: ${errorMessage(error)}`);
      return {
        status: 503,
        code: -32000,
        message: 'the session store (shared by the replicas) cannot be reached, so no session can start; retry later',
      };
    }
  }

  /**
   * Takes up a session another replica initialized: a new MCP server instance, initialized here with
   * the session's recorded \`initialize\` parameters (so it knows the client's capabilities, e.g.
   * elicitation), on a transport answering to the same session id.
   */
  async function restoreSession(id: string, init: unknown, sharedSeen: string): Promise<Session | Refusal> {
    const room = makeRoom();
    if (!room) return TOO_MANY_SESSIONS();
    starting++;
    try {
      await room;
      const server = await create();
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        onsessionclosed: (closed) => forgetShared(closed),
        maxRequestBodySize: limits.maxBodyBytes,
      });
      const cannotTakeUp = (reason: string): Refusal => {
        void server.close().catch(() => undefined);
        log(`MCP session ${id}: could not be taken up here (${reason})`);
        return {
          status: 404,
          code: -32001,
          message: 'session not found: it could not be taken up on this replica; start a new one with initialize',
        };
      };
      try {
        await server.connect(transport);
        tagServerRequests(transport, id, log);
        const primed = await transport.handleRequest(
          syntheticRequest({ jsonrpc: '2.0', id: 'agent-spaces-restore', method: 'initialize', params: init }),
        );
        const answer = await primed.text();
        if (primed.status !== 200 || !answer.includes('"result"')) return cannotTakeUp(`${primed.status}: ${answer.slice(0, 200)}`);
        await (await transport.handleRequest(syntheticRequest({ jsonrpc: '2.0', method: 'notifications/initialized' }, id))).text();
      } catch (error) {
        // The new server instance must not outlive a take-up that failed half-way.
        return cannotTakeUp(errorMessage(error));
      }
      const fetchable = toNodeHandler(
        {
          fetch: (request, options) =>
            transport.handleRequest(request, options?.parsedBody === undefined ? {} : { parsedBody: options.parsedBody }),
        },
        { maxRequestBodySize: limits.maxBodyBytes },
      );
      const session: Session = {
        id,
        server,
        serve: (request, response, body) => fetchable(request as NodeIncomingMessageLike, response as NodeServerResponseLike, body),
        lastSeen: performance.now(),
        open: 0,
        sharedSeen,
      };
      transport.onclose = () => {
        if (sessions.get(id) === session) sessions.delete(id);
      };
      sessions.set(id, session);
      log(`MCP session ${id}: taken up from another replica`);
      return session;
    } finally {
      starting--;
    }
  }

  function forgetShared(id: string | undefined): void {
    if (shared && id)
      void shared
        .remove(id)
        .catch((error: unknown) => log(`MCP session ${id}: could not remove it from the shared session store: ${errorMessage(error)}`));
  }

  /** A 2026-07-28 request: no session, an instance of its own; counted against the cap of such requests open at once. */
  async function serveStateless(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    if (statelessOpen >= limits.maxStatelessRequests) {
      return refuse(response, {
        status: 429,
        code: -32000,
        message: `too many requests open without a session (at most ${limits.maxStatelessRequests}); wait for one to finish`,
      });
    }
    statelessOpen++;
    response.once('close', () => statelessOpen--);
    await serveModern(request, response, body);
  }

  async function startSession(
    id: string,
    server: ConnectableMcpServer,
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
    sharedSeen?: string,
  ): Promise<void> {
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () =>
        void sessions.set(id, {
          id,
          server,
          serve: (request, response, body) => transport.handleRequest(request, response, body),
          lastSeen: performance.now(),
          open: 0,
          ...(sharedSeen === undefined ? {} : { sharedSeen }),
        }),
      onsessionclosed: (closed) => forgetShared(closed),
    });
    transport.onclose = () => {
      if (sessions.get(id)?.server === server) sessions.delete(id);
    };
    try {
      await server.connect(transport);
      if (shared) tagServerRequests(transport, id, log);
      await transport.handleRequest(request, response, body);
    } finally {
      // An initialize the transport rejected leaves no session behind: nothing else would close it.
      if (!transport.sessionId || sessions.get(transport.sessionId)?.server !== server) void server.close().catch(() => undefined);
    }
  }

  function readBody(request: IncomingMessage): Promise<{ value: unknown } | { refusal: Refusal }> | undefined {
    return request.method === 'POST' ? readJsonBody(request, limits.maxBodyBytes) : undefined;
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    if (bind.address === undefined) httpServer.listen(http.port, () => resolve());
    else httpServer.listen(http.port, bind.address, () => resolve());
  });
  const { address, port } = httpServer.address() as AddressInfo;
  if (!bind.loopback) log(`MCP over HTTP bound to ${address}, which is not loopback: every request needs the bearer token`);
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}/mcp`,
    async close() {
      clearInterval(sweeper);
      await modern.close().catch(() => undefined);
      const closing = [...sessions.values()].map((session) => session.server.close().catch(() => undefined));
      sessions.clear();
      await Promise.all(closing);
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

/**
 * Answers with a JSON-RPC error and closes the connection. What is left of the request's body is read
 * and thrown away first (bounded: `discardBody`), or the close would reset the connection under the
 * answer of a client still writing; the connection is not kept for another request.
 */
function refuse(response: ServerResponse, refusal: Refusal): Promise<void> {
  response.setHeader('connection', 'close');
  return discardBody(response.req).then(() =>
    reply(response, refusal.status, { jsonrpc: '2.0', error: { code: refusal.code, message: refusal.message }, id: null }),
  );
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** The JSON-RPC requests (messages with a method and an id) a body carries: a batch's, or 0 or 1. */
function requestsIn(body: unknown): number {
  const isRequest = (message: unknown): boolean =>
    typeof message === 'object' && message !== null && 'method' in message && 'id' in message;
  return Array.isArray(body) ? body.filter(isRequest).length : isRequest(body) ? 1 : 0;
}

function definedOnly(http: McpHttpOptions): Partial<Record<keyof typeof DEFAULT_HTTP_LIMITS, number>> {
  const limits: Partial<Record<keyof typeof DEFAULT_HTTP_LIMITS, number>> = {};
  for (const key of Object.keys(DEFAULT_HTTP_LIMITS) as (keyof typeof DEFAULT_HTTP_LIMITS)[]) {
    const value = http[key];
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}

/** A request to a transport from this process itself (taking up a shared session): no socket, no network. */
function syntheticRequest(message: unknown, sessionId?: string): Request {
  return new Request('http://localhost/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(message),
  });
}

/**
 * Gives the server→client requests of a shared session (elicitations: approvals) ids of this instance's
 * own — a random tag before the SDK's counter — and hands back only the answers that carry the tag. The
 * instances of one session on several replicas each count their requests from 0: an answer the load
 * balancer sends to another replica must not settle that replica's request of the same number (the
 * answer to one call's approval would decide another call's). Such an answer is dropped, and said so.
 */
function tagServerRequests(transport: Transport, sessionId: string, log: (line: string) => void): void {
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

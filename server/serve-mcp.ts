import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../core/index.js';
import { MAX_BODY_BYTES } from './http-guard.js';
import { resolveBindAddress, type BindAddress } from './loopback.js';
import { guardRequest, McpHttpEndpoint, type McpHttpEndpointOptions } from './mcp-http-endpoint.js';
import { McpSessions, type ConnectableMcpServer, type SharedSessions } from './mcp-sessions.js';
import { refuse, reply } from './refuse.js';
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
  return serveMcpPaths([{ path: '/mcp', create }], {
    http,
    ...(options.sharedSessions ? { sharedSessions: options.sharedSessions } : {}),
    log,
    notFound: 'not found: the MCP endpoint is /mcp',
  });
}

/** One MCP endpoint of an HTTP server: its path and what makes its MCP server instances. */
export interface McpPath {
  /** The URL path (`/mcp`, `/spaces/<name>/mcp`). */
  path: string;
  create: () => ConnectableMcpServer | Promise<ConnectableMcpServer>;
}

/**
 * Streamable HTTP with one MCP endpoint per path on one port, each with its own sessions, session and
 * request caps and per-request instances: a session started at one path is not found at another. The
 * front guards (Host/Origin, bearer token, body, header and time limits) apply to every path, and to
 * paths served by none (answered 404 with `notFound`, after the guards).
 */
export async function serveMcpPaths(
  paths: readonly McpPath[],
  options: { http: McpHttpOptions; sharedSessions?: SharedSessions; log: (line: string) => void; notFound: string },
): Promise<RunningMcpServer & { url: string; urls: Record<string, string> }> {
  const { http, log } = options;
  const limits = httpLimitsOf(http);
  const bind = await resolveHttpBind(http);
  const [node, server] = await Promise.all([import('@modelcontextprotocol/node'), import('@modelcontextprotocol/server')]);
  const sdk = { node, server };
  const served = new Map(
    paths.map(({ path, create }) => [path, endpointOf(create, { limits, bind, http, sdk, log, shared: options.sharedSessions })]),
  );
  const sweeper = setInterval(
    () => served.forEach(({ sessions }) => sessions.closeIdle()),
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
      const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
      const endpoint = served.get(pathname)?.endpoint;
      const handled = endpoint
        ? endpoint.handle(request, response)
        : refuse(response, guardRequest(request, bind.loopback, http.token) ?? { status: 404, code: -32000, message: options.notFound });
      handled.catch((error: unknown) => {
        log(`HTTP request failed: ${errorMessage(error)}`);
        if (!response.headersSent) reply(response, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null });
      });
    },
  );
  await listen(httpServer, http.port, bind);
  const { address, port } = httpServer.address() as AddressInfo;
  if (!bind.loopback) log(`MCP over HTTP bound to ${address}, which is not loopback: every request needs the bearer token`);
  const origin = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  const urls = Object.fromEntries(paths.map(({ path }) => [path, `${origin}${path}`]));
  return {
    url: `${origin}${paths[0]?.path ?? '/mcp'}`,
    urls,
    async close() {
      clearInterval(sweeper);
      for (const { modern, sessions } of served.values()) {
        await modern.close().catch(() => undefined);
        await sessions.closeAll();
      }
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

/** One path's endpoint: its sessions (2025-11-25 clients), its per-request handler (2026-07-28 clients) and the guards before both. */
function endpointOf(
  create: McpPath['create'],
  context: {
    limits: Record<keyof typeof DEFAULT_HTTP_LIMITS, number>;
    bind: BindAddress;
    http: McpHttpOptions;
    sdk: McpHttpEndpointOptions['sdk'];
    log: (line: string) => void;
    shared: SharedSessions | undefined;
  },
): { endpoint: McpHttpEndpoint; sessions: McpSessions; modern: { close(): Promise<void> } } {
  const { limits, sdk, log, shared } = context;
  const sessions = new McpSessions({ create, limits, shared, log, sdk });
  // 2026-07-28 requests: an instance per request. Legacy requests never reach this handler ('reject'):
  // they are routed to sessions.
  const modern = sdk.server.createMcpHandler(() => create(), {
    legacy: 'reject',
    maxRequestBodySize: limits.maxBodyBytes,
    onerror: (error) => log(`MCP request refused: ${errorMessage(error)}`),
  });
  const serveModern = sdk.node.toNodeHandler(modern, {
    maxRequestBodySize: limits.maxBodyBytes,
    onerror: (error) => log(`MCP request failed: ${errorMessage(error)}`),
  });
  const endpoint = new McpHttpEndpoint({
    sessions,
    limits,
    loopback: context.bind.loopback,
    token: context.http.token,
    shared,
    serveModern,
    sdk,
  });
  return { endpoint, sessions, modern };
}

/** The HTTP limits: the defaults with what the options set, each checked to be a positive integer. */
function httpLimitsOf(http: McpHttpOptions): Record<keyof typeof DEFAULT_HTTP_LIMITS, number> {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...definedOnly(http) };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0)
      throw new RangeError(`serveMcp: http.${name} must be a positive integer (got ${String(value)})`);
  }
  return limits;
}

function listen(httpServer: HttpServer, port: number, bind: BindAddress): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    if (bind.address === undefined) httpServer.listen(port, () => resolve());
    else httpServer.listen(port, bind.address, () => resolve());
  });
}

function definedOnly(http: McpHttpOptions): Partial<Record<keyof typeof DEFAULT_HTTP_LIMITS, number>> {
  const limits: Partial<Record<keyof typeof DEFAULT_HTTP_LIMITS, number>> = {};
  for (const key of Object.keys(DEFAULT_HTTP_LIMITS) as (keyof typeof DEFAULT_HTTP_LIMITS)[]) {
    const value = http[key];
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}

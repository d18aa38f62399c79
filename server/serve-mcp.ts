import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/index.js';
import { checkLocalRequest, hasBearerToken, readJsonBody, type Refusal } from './http-guard.js';

const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

/** What `serveMcp` needs of an MCP server: the SDK's `McpServer` and low-level `Server` both fit. */
export interface ConnectableMcpServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

export interface McpServeOptions {
  /** Streamable HTTP at `http://<host>:<port>/mcp` instead of stdio. */
  http?: {
    port: number;
    /** Default 127.0.0.1; on a loopback address, requests from other hosts and web origins are refused. */
    host?: string;
    /** Require `Authorization: Bearer <token>` (compared in constant time). */
    token?: string;
    /** A session with no request open for this long is closed (clients that vanish never send DELETE). Default 30 min. */
    sessionIdleMs?: number;
  };
  /** Log lines (stderr in the CLI; never stdout, which is the protocol on stdio). */
  log?: (line: string) => void;
}

export interface RunningMcpServer {
  /** For HTTP: the endpoint actually bound (port 0 picks a free one). */
  url?: string;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
  /** Requests of this session still being answered (an SSE stream stays open for long). */
  open: number;
}

/**
 * Serves MCP servers made by `create`: one on stdio, or one per Streamable HTTP session, with the
 * HTTP hardening every server of ours needs (loopback Host/Origin checks against DNS rebinding, a body
 * cap, parse errors that say so, a constant-time bearer token, idle sessions closed).
 */
export async function serveMcp(create: () => ConnectableMcpServer, options: McpServeOptions = {}): Promise<RunningMcpServer> {
  const log = options.log ?? (() => undefined);
  const http = options.http;
  if (!http) {
    const server = create();
    await server.connect(new StdioServerTransport());
    return { close: () => server.close() };
  }
  const host = http.host ?? '127.0.0.1';
  const sessions = new Map<string, Session>();
  const idleMs = http.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const sweeper = setInterval(() => {
    const now = performance.now();
    for (const session of sessions.values()) {
      if (session.open === 0 && now - session.lastSeen > idleMs) void session.transport.close().catch(() => undefined);
    }
  }, Math.max(10, Math.min(idleMs / 2, 60_000)));
  sweeper.unref();
  const httpServer: HttpServer = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`HTTP request failed: ${errorMessage(error)}`);
      if (!response.headersSent) reply(response, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') return reply(response, 404, { error: 'not found: the MCP endpoint is /mcp' });
    const local = checkLocalRequest(request, host);
    if (local) return refuse(response, local);
    if (http?.token && !hasBearerToken(request, http.token)) {
      return reply(response, 401, { jsonrpc: '2.0', error: { code: -32001, message: 'missing or wrong bearer token' }, id: null });
    }
    let body: unknown;
    if (request.method === 'POST') {
      const read = await readJsonBody(request);
      if ('refusal' in read) return refuse(response, read.refusal);
      body = read.value;
    }
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) {
      existing.open++;
      existing.lastSeen = performance.now();
      response.once('close', () => {
        existing.open--;
        existing.lastSeen = performance.now();
      });
      return existing.transport.handleRequest(request, response, body);
    }
    if (request.method !== 'POST' || !isInitializeRequest(body)) {
      return reply(response, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'no valid session; send initialize first' }, id: null });
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, lastSeen: performance.now(), open: 0 }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await create().connect(transport);
    await transport.handleRequest(request, response, body);
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(http.port, host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    async close() {
      clearInterval(sweeper);
      for (const session of sessions.values()) await session.transport.close().catch(() => undefined);
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

/** Answers with a JSON-RPC error and closes the connection: an unread body must not be drained. */
function refuse(response: ServerResponse, refusal: Refusal): void {
  response.setHeader('connection', 'close');
  reply(response, refusal.status, { jsonrpc: '2.0', error: { code: refusal.code, message: refusal.message }, id: null });
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

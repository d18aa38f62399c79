import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { openSpace } from '../agents/index.js';
import type { Space, SpaceOptions } from '../space/index.js';
import { createAgentSpacesMcpServer, createRunRouter } from './create-mcp-server.js';
import { checkLocalRequest, hasBearerToken, readJsonBody, type Refusal } from './http-guard.js';

export const SERVER_INFO = { name: 'agent-spaces', version: '0.1.0' };

const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

interface Session {
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
  /** Requests of this session still being answered (an SSE stream stays open for long). */
  open: number;
}

export interface ServeOptions extends Omit<SpaceOptions, 'approvalHandler' | 'onEvent'> {
  /** Streamable HTTP instead of stdio. */
  http?: {
    port: number;
    host?: string;
    token?: string;
    /** A session with no request open for this long is closed (clients that vanish never send DELETE). Default 30 min. */
    sessionIdleMs?: number;
  };
  /** Receives log lines (never stdout: in stdio mode stdout is the protocol). */
  log?: (line: string) => void;
}

export interface RunningServer {
  space: Space;
  /** For HTTP: the address actually bound (port 0 picks a free one). */
  url?: string;
  close(): Promise<void>;
}

/** Serves a space over MCP (stdio by default, Streamable HTTP with `http`). */
export async function serveSpace(options: ServeOptions): Promise<RunningServer> {
  const router = createRunRouter();
  const { http, log = () => undefined, ...spaceOptions } = options;
  const space = await openSpace({ ...spaceOptions, onEvent: router.onEvent, approvalHandler: router.approve });
  if (!http) {
    const server = createAgentSpacesMcpServer(space, router, SERVER_INFO);
    const transport = new StdioServerTransport();
    await server.connect(transport);
    log('agent-spaces: serving MCP on stdio');
    return {
      space,
      async close() {
        await server.close();
        await space.close();
      },
    };
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
      log(`agent-spaces: HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) reply(response, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? host}`);
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
    if (request.method !== 'POST') return reply(response, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'no valid session; send initialize first' }, id: null });
    if (!isInitializeRequest(body)) return reply(response, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'no valid session; send initialize first' }, id: null });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, lastSeen: performance.now(), open: 0 }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = createAgentSpacesMcpServer(space, router, SERVER_INFO);
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(http.port, host, () => resolve());
  });
  const address = httpServer.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/mcp`;
  log(`agent-spaces: serving MCP (Streamable HTTP) at ${url}${http.token ? ' (bearer token required)' : ''}`);
  return {
    space,
    url,
    async close() {
      clearInterval(sweeper);
      for (const session of sessions.values()) await session.transport.close().catch(() => undefined);
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      await closed;
      await space.close();
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

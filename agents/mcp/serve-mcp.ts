import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../core/index.js';

export interface McpServeOptions {
  /** Streamable HTTP at `http://<host>:<port>/mcp` instead of stdio. Host defaults to 127.0.0.1. */
  http?: { port: number; host?: string; token?: string };
  /** Log lines (stderr in the CLI; never stdout, which is the protocol on stdio). */
  log?: (line: string) => void;
}

export interface RunningMcpServer {
  /** For HTTP: the endpoint actually bound. */
  url?: string;
  close(): Promise<void>;
}

/** Serves MCP servers made by `create` (one per HTTP session; one for stdio). */
export async function serveMcp(create: () => Server, options: McpServeOptions = {}): Promise<RunningMcpServer> {
  const log = options.log ?? (() => undefined);
  const http = options.http;
  if (!http) {
    const server = create();
    await server.connect(new StdioServerTransport());
    return { close: () => server.close() };
  }
  const host = http.host ?? '127.0.0.1';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const httpServer = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`HTTP request failed: ${errorMessage(error)}`);
      if (!response.headersSent) reply(response, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') return reply(response, 404, { error: 'not found: the MCP endpoint is /mcp' });
    if (http?.token && request.headers.authorization !== `Bearer ${http.token}`) {
      return reply(response, 401, { jsonrpc: '2.0', error: { code: -32001, message: 'missing or wrong bearer token' }, id: null });
    }
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(request, response, request.method === 'POST' ? await readJson(request) : undefined);
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    if (!isInitializeRequest(body)) return reply(response, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'no valid session; send initialize first' }, id: null });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
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
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

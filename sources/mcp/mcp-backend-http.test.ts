import { createServer } from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CapabilitySpec } from '../../core/index.js';
import { McpConnectError, connectMcpServer, listAllTools } from './connect.js';
import { createMcpBackend } from './mcp-backend.js';
import { callOf, capabilityFromTools } from './test-support/mcp-test-calls.js';

function makeServer(): McpServer {
  const server = new McpServer({ name: 'http-test', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool(
    'get-sum',
    { inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  return server;
}

interface TestHttpServer {
  url: string;
  /** The `x-api-key` header of every request received. */
  apiKeys: Array<string | undefined>;
  close(): Promise<void>;
}

async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  path: string,
): Promise<TestHttpServer> {
  const apiKeys: Array<string | undefined> = [];
  const server: HttpServer = createServer((request, response) => {
    const key = request.headers['x-api-key'];
    apiKeys.push(Array.isArray(key) ? key[0] : key);
    handler(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    apiKeys,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A stateless Streamable HTTP MCP server at `/mcp`. */
function streamableHttpServer(): Promise<TestHttpServer> {
  return listen(async (request, response) => {
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') {
      response.writeHead(404).end();
      return;
    }
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  }, '/mcp');
}

/** A server that speaks only the legacy HTTP+SSE transport (GET /sse, POST /messages). */
function legacySseServer(): Promise<TestHttpServer> {
  const transports = new Map<string, SSEServerTransport>();
  return listen(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', response);
      transports.set(transport.sessionId, transport);
      response.on('close', () => transports.delete(transport.sessionId));
      await makeServer().connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get('sessionId') ?? '');
    if (request.method === 'POST' && url.pathname === '/messages' && transport !== undefined) {
      await transport.handlePostMessage(request, response);
      return;
    }
    response.writeHead(405).end();
  }, '/sse');
}

let streamable: TestHttpServer;
let legacy: TestHttpServer;
let capability: CapabilitySpec;
beforeAll(async () => {
  streamable = await streamableHttpServer();
  legacy = await legacySseServer();
  const connection = await connectMcpServer('http-test', { url: streamable.url });
  capability = capabilityFromTools('mcp-http-test', 'http-test', await listAllTools(connection.client));
  await connection.close();
});
afterAll(async () => {
  await streamable?.close();
  await legacy?.close();
});

describe('createMcpBackend over HTTP', () => {
  it('calls a Streamable HTTP server, sending the configured headers', async () => {
    const backend = createMcpBackend({
      servers: { 'mcp-http-test': { name: 'http-test', config: { url: streamable.url, headers: { 'x-api-key': 'k-123' } } } },
    });
    try {
      await expect(backend.call(callOf(capability, 'get-sum', { a: 4, b: 5 }))).resolves.toEqual({ sum: 9 });
      await expect(backend.call(callOf(capability, 'echo', { text: 'over http' }))).resolves.toBe('over http');
      expect(backend.connections()).toEqual([{ module: 'mcp-http-test', server: 'http-test', transport: 'streamable-http', connects: 1 }]);
      expect(streamable.apiKeys.at(-1)).toBe('k-123');
    } finally {
      await backend.close();
    }
  });

  it('falls back to legacy SSE when the server refuses Streamable HTTP', async () => {
    const backend = createMcpBackend({
      servers: { 'mcp-http-test': { name: 'http-test', config: { url: legacy.url, headers: { 'x-api-key': 'k-sse' } } } },
    });
    try {
      await expect(backend.call(callOf(capability, 'get-sum', { a: 1, b: 2 }))).resolves.toEqual({ sum: 3 });
      await expect(backend.call(callOf(capability, 'echo', { text: 'over sse' }))).resolves.toBe('over sse');
      expect(backend.connections()[0]?.transport).toBe('sse');
      expect(legacy.apiKeys.at(-1)).toBe('k-sse');
    } finally {
      await backend.close();
    }
  });

  it('uses SSE only when the server type is sse', async () => {
    const connection = await connectMcpServer('legacy', { type: 'sse', url: legacy.url });
    try {
      expect(connection.transport).toBe('sse');
      expect(connection.serverInfo?.name).toBe('http-test');
    } finally {
      await connection.close();
    }
  });

  it('names the server and URL when neither transport answers', async () => {
    const missing = `${streamable.url.replace(/\/mcp$/, '')}/nothing-here`;
    const error = await connectMcpServer('nowhere', { url: missing }, { timeoutMs: 2_000 }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as McpConnectError).message).toMatch(
      /^MCP server "nowhere": http:\/\/127\.0\.0\.1:\d+\/nothing-here refused Streamable HTTP \(.*404.*\) and legacy SSE \(.*\); check the URL$/,
    );
  });
});

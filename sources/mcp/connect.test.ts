import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpConnectError, connectMcpServer, hashToolSchema, listAllTools } from './connect.js';

const fixture = fileURLToPath(new URL('./__fixtures__/fixture-server.mjs', import.meta.url));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function connectError(promise: Promise<unknown>): Promise<McpConnectError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof McpConnectError)) throw new Error(`expected an McpConnectError, got ${String(error)}`);
  return error;
}

describe('connectMcpServer (stdio)', () => {
  it('starts the server with env and cwd, completes the handshake and keeps its stderr', async () => {
    const cwd = tmpdir();
    const connection = await connectMcpServer('fixture', {
      command: process.execPath,
      args: [fixture],
      env: { FIXTURE_GREETING: 'hello' },
      cwd,
    });
    try {
      expect(connection.serverInfo).toEqual({ name: 'fixture-server', version: '1.0.0' });
      expect(connection.transport).toBe('stdio');
      expect(connection.pid).toBeGreaterThan(0);
      const result = await connection.client.callTool({ name: 'environment', arguments: { name: 'FIXTURE_GREETING' } });
      expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ value: 'hello', cwd }) }]);
      // Only the safe default environment is inherited, not ours.
      process.env.AGENT_SPACES_TEST_SECRET = 'do-not-leak';
      const leaked = await connection.client.callTool({ name: 'environment', arguments: { name: 'AGENT_SPACES_TEST_SECRET' } });
      expect(leaked.content).toEqual([{ type: 'text', text: JSON.stringify({ value: null, cwd }) }]);
      expect(connection.stderrTail()).toContain('fixture-server ready');
    } finally {
      delete process.env.AGENT_SPACES_TEST_SECRET;
      await connection.close();
    }
    expect(connection.pid === undefined ? false : isAlive(connection.pid)).toBe(false);
  });

  it('times out a child that never answers the handshake, naming the server, and kills the child', async () => {
    const error = await connectError(
      connectMcpServer('silent', { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }, { timeoutMs: 200 }),
    );
    expect(error.code).toBe('MCP_CONNECT_TIMEOUT');
    expect(error.message).toBe(
      `MCP server "silent": "${process.execPath}" did not complete the MCP handshake within 200 ms; check that it is an MCP stdio server, or raise connectTimeoutMs`,
    );
    const pid = error.details?.pid;
    expect(typeof pid).toBe('number');
    expect(isAlive(pid as number)).toBe(false);
  });

  it('stops connecting when the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await connectError(
      connectMcpServer('silent', { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }, { signal: controller.signal }),
    );
    expect(error.code).toBe('MCP_CONNECT_CANCELLED');
    expect(error.server).toBe('silent');
  });
});

describe('listAllTools', () => {
  it('follows nextCursor through every page', async () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      const start = Number(request.params?.cursor ?? '0');
      const page = names.slice(start, start + 2).map((name) => ({ name, inputSchema: { type: 'object' as const } }));
      return start + 2 < names.length ? { tools: page, nextCursor: String(start + 2) } : { tools: page };
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientTransport);
    try {
      expect((await listAllTools(client)).map((tool) => tool.name)).toEqual(names);
    } finally {
      await client.close();
    }
  });
});

describe('hashToolSchema', () => {
  it('ignores key order and changes with the schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', description: 'A' }, b: { type: 'number' } }, required: ['a'] };
    const reordered = { required: ['a'], properties: { b: { type: 'number' }, a: { description: 'A', type: 'string' } }, type: 'object' };
    expect(hashToolSchema(reordered)).toBe(hashToolSchema(schema));
    expect(hashToolSchema(schema)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToolSchema({ ...schema, required: ['a', 'b'] })).not.toBe(hashToolSchema(schema));
    expect(hashToolSchema({ ...schema, required: ['b', 'a'] })).not.toBe(hashToolSchema({ ...schema, required: ['a', 'b'] }));
  });
});

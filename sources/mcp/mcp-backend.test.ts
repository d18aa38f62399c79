import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CapabilitySpec } from '../../core/index.js';
import type { McpConnection } from './connect.js';
import { listAllTools } from './connect.js';
import type { McpServerConfig } from '../../config/index.js';
import type { CallProgress } from '../../bridge/index.js';
import { createMcpBackend, type McpBackend } from './mcp-backend.js';
import { callOf, capabilityFromTools } from './test-support/mcp-test-calls.js';
import { toolCallErrorOf } from '../../test/support/tool-call-error-of.js';

const PNG = 'iVBORw0KGgo=';

/** What the in-memory server saw, so tests can check what reached it. */
interface ServerLog {
  started: Array<() => void>;
  aborted: string[];
}

function makeServer(log: ServerLog, variant: 'v1' | 'v2' = 'v1'): McpServer {
  const server = new McpServer({ name: 'memory-test', version: '1.0.0' });
  const echo = async ({ text }: { text: string }) => ({
    content: [
      { type: 'text' as const, text },
      { type: 'text' as const, text: 'second line' },
    ],
  });
  if (variant === 'v1') server.registerTool('echo', { inputSchema: { text: z.string() } }, echo);
  else server.registerTool('echo', { inputSchema: { text: z.string(), loud: z.boolean() } }, echo);
  server.registerTool(
    'get-sum',
    { inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool('legacy-json', {}, async () => ({ content: [{ type: 'text', text: '{"sum":5}' }] }));
  if (variant === 'v1') {
    server.registerTool('picture', {}, async () => ({
      content: [
        { type: 'text', text: 'a pixel' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///tmp/a.txt', name: 'a.txt' },
        { type: 'resource', resource: { uri: 'file:///tmp/b.txt', text: 'bee' } },
      ],
    }));
  }
  server.registerTool('fail', {}, async () => ({ isError: true, content: [{ type: 'text', text: 'quota exceeded for "acme"' }] }));
  server.registerTool('unknown-args', { inputSchema: { n: z.number() } }, async ({ n }) => ({
    content: [{ type: 'text', text: String(n) }],
  }));
  server.registerTool(
    'slow',
    { inputSchema: { ms: z.number(), progressEveryMs: z.number().optional(), label: z.string().optional() } },
    async ({ ms, progressEveryMs, label }, extra) => {
      for (const notify of log.started.splice(0)) notify();
      extra.signal.addEventListener('abort', () => log.aborted.push(label ?? 'slow'));
      const token = extra._meta?.progressToken;
      const started = Date.now();
      let step = 0;
      while (Date.now() - started < ms && !extra.signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, progressEveryMs ?? 10));
        if (progressEveryMs !== undefined && token !== undefined) {
          step += 1;
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: step, total: 100, message: `step ${step}` },
          });
        }
      }
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  return server;
}

async function connectInMemory(server: McpServer): Promise<McpConnection> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientTransport);
  return { client, serverInfo: client.getServerVersion(), transport: 'in-memory', stderrTail: () => '', close: () => client.close() };
}

async function discover(log: ServerLog): Promise<CapabilitySpec> {
  const connection = await connectInMemory(makeServer(log));
  const tools = await listAllTools(connection.client);
  await connection.close();
  return capabilityFromTools('mcp-memory-test', 'memory-test', tools);
}

const baseConfig: McpServerConfig = { command: 'in-memory' };
let backend: McpBackend | undefined;
afterEach(async () => {
  await backend?.close();
  backend = undefined;
});

function setup(options: { config?: Partial<McpServerConfig>; variant?: 'v1' | 'v2' } = {}) {
  const log: ServerLog = { started: [], aborted: [] };
  let connects = 0;
  backend = createMcpBackend({
    servers: { 'mcp-memory-test': { name: 'memory-test', config: { ...baseConfig, ...options.config } as McpServerConfig } },
    connect: async () => {
      connects += 1;
      return connectInMemory(makeServer(log, options.variant));
    },
  });
  const started = () => new Promise<void>((resolve) => log.started.push(resolve));
  return { backend, log, started, connects: () => connects };
}

describe('createMcpBackend (in-memory server)', () => {
  it('maps structuredContent, joined text, and the full result', async () => {
    const { backend } = setup();
    const capability = await discover({ started: [], aborted: [] });
    await expect(backend.call(callOf(capability, 'get-sum', { a: 2, b: 3 }))).resolves.toEqual({ sum: 5 });
    await expect(backend.call(callOf(capability, 'echo', { text: 'hi' }))).resolves.toBe('hi\nsecond line');
    const full = await backend.call(callOf(capability, 'picture', {}, { resultMode: 'full' }));
    expect(full).toEqual({
      content: [
        { type: 'text', text: 'a pixel' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///tmp/a.txt', name: 'a.txt' },
        { type: 'resource', resource: { uri: 'file:///tmp/b.txt', text: 'bee' } },
      ],
    });
    const sumFull = await backend.call(callOf(capability, 'get-sum', { a: 1, b: 1 }, { resultMode: 'full' }));
    expect(sumFull).toEqual({ content: [{ type: 'text', text: '{"sum":2}' }], structuredContent: { sum: 2 } });
  });

  it('reads a single JSON text block when a structured tool omits structuredContent', async () => {
    const { backend } = setup();
    const capability = await discover({ started: [], aborted: [] });
    const legacy = capability.functions.find((fn) => fn.toolName === 'legacy-json');
    if (legacy === undefined) throw new Error('no legacy-json');
    const call = { ...callOf(capability, 'legacy-json'), function: { ...legacy, resultKind: 'mcp-structured' as const } };
    await expect(backend.call(call)).resolves.toEqual({ sum: 5 });
  });

  it('rejects an isError result with the server text', async () => {
    const { backend } = setup();
    const capability = await discover({ started: [], aborted: [] });
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'fail')));
    expect(error.code).toBe('TOOL_ERROR_RESULT');
    expect(error.message).toBe('quota exceeded for "acme"');
    expect(error.capability).toBe('mcp-memory-test');
    expect(error.function).toBe('fail');
  });

  it('passes on the argument check of an SDK server, which comes back as an error result', async () => {
    const { backend } = setup();
    const capability = await discover({ started: [], aborted: [] });
    // Arguments are normally validated by the bridge first; here the server's own check answers.
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'unknown-args', { n: 'x' })));
    expect(error.code).toBe('TOOL_ERROR_RESULT');
    expect(error.message).toMatch(/Input validation error/);
  });

  it('connects once for ten racing first calls and reuses the connection', async () => {
    const { backend, connects } = setup();
    const capability = await discover({ started: [], aborted: [] });
    expect(backend.connectionCount()).toBe(0);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => backend.call(callOf(capability, 'get-sum', { a: index, b: 1 }))),
    );
    expect(results).toEqual(Array.from({ length: 10 }, (_, index) => ({ sum: index + 1 })));
    await backend.call(callOf(capability, 'echo', { text: 'again' }));
    expect(connects()).toBe(1);
    expect(backend.connectionCount()).toBe(1);
    expect(backend.connections()).toEqual([{ module: 'mcp-memory-test', server: 'memory-test', transport: 'in-memory', connects: 1 }]);
  });

  it('fails a hanging call with TIMEOUT after the per-server timeout, and the server sees the cancel', async () => {
    const { backend, log } = setup({ config: { timeoutMs: 150 } });
    const capability = await discover({ started: [], aborted: [] });
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'slow', { ms: 5_000, label: 'hang' })));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('tool "slow" of MCP server "memory-test" did not answer within 150 ms');
    await expect.poll(() => log.aborted).toEqual(['hang']);
  });

  it('lets progress notifications reset the timeout, forwarding them to onProgress', async () => {
    // The call lasts 2.5 times the timeout; progress every 50 ms keeps it alive (the timeout leaves a
    // busy machine room for a late notification).
    const { backend } = setup({ config: { timeoutMs: 1000 } });
    const capability = await discover({ started: [], aborted: [] });
    const progress: CallProgress[] = [];
    const value = await backend.call(
      callOf(capability, 'slow', { ms: 2500, progressEveryMs: 50 }, { onProgress: (update) => progress.push(update) }),
    );
    expect(value).toBe('done');
    expect(progress.length).toBeGreaterThan(3);
    expect(progress[0]).toEqual({ progress: 1, total: 100, message: 'step 1' });
  });

  it('stops a call that keeps sending progress at the total cap', async () => {
    const { backend } = setup({ config: { timeoutMs: 200, maxTotalTimeoutMs: 400 } });
    const capability = await discover({ started: [], aborted: [] });
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'slow', { ms: 5_000, progressEveryMs: 50 })));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('total cap of 400 ms');
  });

  it('cancels an in-flight call when the run aborts, and the server observes it', async () => {
    const { backend, log, started } = setup();
    const capability = await discover({ started: [], aborted: [] });
    const run = new AbortController();
    const running = started();
    const pending = backend.call(callOf(capability, 'slow', { ms: 10_000, label: 'cancel-me' }, { signal: run.signal }));
    await running;
    run.abort(new Error('run cancelled'));
    const error = await toolCallErrorOf(pending);
    expect(error.code).toBe('CANCELLED');
    expect(error.message).toContain('notifications/cancelled');
    await expect.poll(() => log.aborted).toEqual(['cancel-me']);
    // Other calls on the shared connection are unaffected.
    await expect(backend.call(callOf(capability, 'echo', { text: 'still here' }))).resolves.toBe('still here\nsecond line');
  });

  it('rejects an already-cancelled call without connecting', async () => {
    const { backend, connects } = setup();
    const capability = await discover({ started: [], aborted: [] });
    const run = new AbortController();
    run.abort();
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'echo', { text: 'x' }, { signal: run.signal })));
    expect(error.code).toBe('CANCELLED');
    expect(connects()).toBe(0);
  });

  it('detects tools that changed or vanished since the build; unchanged tools keep working', async () => {
    const capability = await discover({ started: [], aborted: [] });
    const { backend } = setup({ variant: 'v2' });
    const changed = await toolCallErrorOf(backend.call(callOf(capability, 'echo', { text: 'x' })));
    expect(changed.code).toBe('SCHEMA_CHANGED');
    expect(changed.message).toBe(
      'tool "echo" of MCP server "memory-test" cannot be called: its input schema changed. The tool list of MCP server "memory-test" changed since the build; run `agent-spaces capabilities build`',
    );
    const missing = await toolCallErrorOf(backend.call(callOf(capability, 'picture')));
    expect(missing.code).toBe('SCHEMA_CHANGED');
    expect(missing.message).toContain('the server no longer has this tool');
    await expect(backend.call(callOf(capability, 'get-sum', { a: 1, b: 2 }))).resolves.toEqual({ sum: 3 });
  });

  it('cancels a call whose run ends while the server is starting; the start still serves the next call', async () => {
    const log: ServerLog = { started: [], aborted: [] };
    let connects = 0;
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    backend = createMcpBackend({
      servers: { 'mcp-memory-test': { name: 'memory-test', config: baseConfig } },
      connect: async () => {
        connects += 1;
        await gate;
        return connectInMemory(makeServer(log));
      },
    });
    const capability = await discover({ started: [], aborted: [] });
    const run = new AbortController();
    const first = backend.call(callOf(capability, 'echo', { text: 'one' }, { signal: run.signal }));
    const second = backend.call(callOf(capability, 'echo', { text: 'two' }));
    run.abort();
    const error = await toolCallErrorOf(first);
    expect([error.code, error.message]).toEqual([
      'CANCELLED',
      'call to tool "echo" of MCP server "memory-test" was cancelled while the server was starting',
    ]);
    release();
    await expect(second).resolves.toBe('two\nsecond line');
    expect(connects).toBe(1);
  });

  it('refuses calls to a server disabled in the config without connecting', async () => {
    const { backend, connects } = setup({ config: { disabled: true } });
    const capability = await discover({ started: [], aborted: [] });
    // A run that names the module does not start it either.
    backend.prepare?.(capability);
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'echo', { text: 'x' })));
    expect([error.code, error.message]).toEqual([
      'SERVER_UNAVAILABLE',
      'cannot call tool "echo": MCP server "memory-test" is disabled in the config',
    ]);
    expect(connects()).toBe(0);
  });

  it('rejects calls for modules it does not serve, and calls after close', async () => {
    const { backend } = setup();
    const capability = await discover({ started: [], aborted: [] });
    const other = { ...capability, module: 'mcp-other' };
    expect((await toolCallErrorOf(backend.call(callOf(other, 'echo', { text: 'x' })))).code).toBe('UNKNOWN_CAPABILITY');
    await backend.call(callOf(capability, 'echo', { text: 'x' }));
    await backend.close();
    expect(backend.connectionCount()).toBe(0);
    const closed = await toolCallErrorOf(backend.call(callOf(capability, 'echo', { text: 'x' })));
    expect(closed.code).toBe('SERVER_UNAVAILABLE');
    expect(closed.message).toContain('the MCP backend is closed');
  });
});

import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilitySpec } from '../../core/index.js';
import { connectMcpServer, listAllTools } from './connect.js';
import type { McpServerConfig } from '../../config/index.js';
import { trackedChildCount } from './exit-cleanup.js';
import { createMcpBackend } from './mcp-backend.js';
import type { McpBackend } from './mcp-backend.js';
import { callOf, capabilityFromTools, processExists } from './test-support/mcp-test-calls.js';
import { toolCallErrorOf } from '../../test/support/tool-call-error-of.js';

const fixture = fileURLToPath(new URL('./__fixtures__/fixture-server.mjs', import.meta.url));
const failStart = fileURLToPath(new URL('./__fixtures__/fail-start.mjs', import.meta.url));
const config: McpServerConfig = { command: process.execPath, args: [fixture], timeoutMs: 2_000 };

let capability: CapabilitySpec;
beforeAll(async () => {
  const connection = await connectMcpServer('fixture', config);
  capability = capabilityFromTools('mcp-fixture', 'fixture', await listAllTools(connection.client));
  await connection.close();
});

/** A backend whose one server exits at start-up (the fixture says why on stderr), the host log it writes, and its module. */
function brokenServer(): { backend: McpBackend; logged: string[]; broken: CapabilitySpec } {
  const logged: string[] = [];
  const backend = createMcpBackend({
    servers: { 'mcp-broken': { name: 'broken', config: { command: process.execPath, args: [failStart] } } },
    log: (entry) => logged.push(entry),
  });
  return { backend, logged, broken: { ...capability, module: 'mcp-broken' } };
}

function pidOf(backend: McpBackend): number {
  const pid = backend.connections()[0]?.pid;
  if (pid === undefined) throw new Error('no live stdio connection');
  return pid;
}

describe('createMcpBackend (stdio fixture server)', () => {
  let backend: McpBackend;
  beforeAll(() => {
    backend = createMcpBackend({ servers: { 'mcp-fixture': { name: 'fixture', config } } });
  });
  afterAll(async () => {
    await backend.close();
  });

  it('starts lazily, once for ten racing first calls, and reuses the process', async () => {
    expect(backend.connectionCount()).toBe(0);
    const pids = await Promise.all(Array.from({ length: 10 }, () => backend.call(callOf(capability, 'pid'))));
    expect(new Set(pids).size).toBe(1);
    const pid = Number(pids[0]);
    expect(backend.connections()).toEqual([{ module: 'mcp-fixture', server: 'fixture', transport: 'stdio', pid, connects: 1 }]);
    await expect(backend.call(callOf(capability, 'echo', { text: 'hello' }))).resolves.toBe('hello');
    await expect(backend.call(callOf(capability, 'add', { a: 2, b: 40 }))).resolves.toEqual({ sum: 42 });
    expect(await backend.call(callOf(capability, 'pid'))).toBe(String(pid));
    expect(backend.connections()[0]?.connects).toBe(1);
  });

  it('returns images with text in full mode and rejects isError results with the server text', async () => {
    await expect(backend.call(callOf(capability, 'picture'))).resolves.toBe('a red pixel');
    await expect(backend.call(callOf(capability, 'picture', {}, { resultMode: 'full' }))).resolves.toEqual({
      content: [
        { type: 'text', text: 'a red pixel' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      ],
    });
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'fail')));
    expect(error.code).toBe('TOOL_ERROR_RESULT');
    expect(error.message).toBe('the widget is broken');
  });

  it('reports a crash mid-call with its exit code, logs its stderr on the host, then restarts the server on the next call', async () => {
    const before = pidOf(backend);
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'crash')));
    expect(error.code).toBe('SERVER_UNAVAILABLE');
    expect(error.message).toBe(
      'MCP server "fixture" exited (exit code 1) during the call to tool "crash"; it will be restarted on the next call; see the host log for its stderr',
    );
    expect(error.details).toEqual({ server: 'fixture', tool: 'crash', exit: 'exit code 1' });
    expect(backend.hostLog()).toEqual([
      'MCP server "fixture" exited (exit code 1); stderr:\nfixture-server ready\nfixture: crashing on purpose',
    ]);
    expect(processExists(before)).toBe(false);
    expect(backend.connectionCount()).toBe(0);
    const after = Number(await backend.call(callOf(capability, 'pid')));
    expect(after).not.toBe(before);
    expect(backend.connections()[0]?.connects).toBe(2);
  });

  it('times out a hanging call and the server observes the cancellation', async () => {
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'sleep', { ms: 30_000 })));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('tool "sleep" of MCP server "fixture" did not answer within 2000 ms');
    await expect.poll(() => backend.call(callOf(capability, 'cancelled-count'))).toBe('1');
  });

  it('cancels an in-flight call when the run aborts (notifications/cancelled reaches the server)', async () => {
    const run = new AbortController();
    const pending = backend.call(callOf(capability, 'sleep', { ms: 30_000 }, { signal: run.signal }));
    // Abort once the server is inside the call, so the cancellation has a request to cancel.
    await expect.poll(() => backend.call(callOf(capability, 'sleeping-count'))).toBe('1');
    run.abort();
    const error = await toolCallErrorOf(pending);
    expect(error.code).toBe('CANCELLED');
    await expect.poll(() => backend.call(callOf(capability, 'cancelled-count'))).toBe('2');
  });

  it('fails a call answered with a line that is not JSON-RPC, and keeps serving others', async () => {
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'garbage')));
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toMatch(
      /^MCP server "fixture" answered tool "garbage" with a malformed message \(.*not valid JSON.*\); a server must write only JSON-RPC messages to stdout$/,
    );
    await expect(backend.call(callOf(capability, 'echo', { text: 'after garbage' }))).resolves.toBe('after garbage');
  });

  it('fails a call answered with a result that is not a CallToolResult', async () => {
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'bad-result')));
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toMatch(/^MCP server "fixture" returned an invalid result for tool "bad-result": content: /);
  });

  it('leaves no child process behind after close()', async () => {
    const pid = pidOf(backend);
    expect(processExists(pid)).toBe(true);
    expect(trackedChildCount()).toBe(1);
    await backend.close();
    expect(processExists(pid)).toBe(false);
    expect(backend.connectionCount()).toBe(0);
    expect(trackedChildCount()).toBe(0);
  });
});

describe('createMcpBackend.prepare (a program that names the module is starting)', () => {
  it('starts the server before any call, and the first call uses that start', async () => {
    const backend = createMcpBackend({ servers: { 'mcp-fixture': { name: 'fixture', config } } });
    try {
      backend.prepare?.(capability);
      backend.prepare?.(capability);
      await expect.poll(() => backend.connectionCount(), { timeout: 30_000 }).toBe(1);
      const pid = pidOf(backend);
      expect(await backend.call(callOf(capability, 'pid'))).toBe(String(pid));
      expect(backend.connections()[0]?.connects).toBe(1);
    } finally {
      await backend.close();
    }
    backend.prepare?.(capability);
    expect(backend.connectionCount()).toBe(0);
  });

  it('leaves a server that cannot start to the first call, which starts it again and reports why', async () => {
    const { backend, logged, broken } = brokenServer();
    try {
      backend.prepare?.(broken);
      const error = await toolCallErrorOf(backend.call(callOf(broken, 'echo', { text: 'x' })));
      expect(error.code).toBe('SERVER_UNAVAILABLE');
      expect(error.message).toContain('it exited (exit code 3) before completing the MCP handshake');
      expect(logged.length).toBeGreaterThanOrEqual(1);
      expect(logged.every((entry) => entry.includes('fatal: GITHUB_TOKEN is not set'))).toBe(true);
    } finally {
      await backend.close();
    }
  });
});

describe('createMcpBackend (servers that cannot start)', () => {
  it('fails the call with the exit code of a server that dies at start-up, logs its stderr on the host, and retries on the next call', async () => {
    const { backend, logged, broken } = brokenServer();
    try {
      const error = await toolCallErrorOf(backend.call(callOf(broken, 'echo', { text: 'x' })));
      expect(error.code).toBe('SERVER_UNAVAILABLE');
      expect(error.message).toBe(
        `cannot call tool "echo": MCP server "broken": failed to start "${process.execPath}": it exited (exit code 3) before completing the MCP handshake; see the host log for its stderr`,
      );
      expect(error.details).toEqual({ server: 'broken', tool: 'echo', connectCode: 'MCP_CONNECT_FAILED', exit: 'exit code 3' });
      expect(logged).toEqual([
        `MCP server "broken": failed to start "${process.execPath}": it exited (exit code 3) before completing the MCP handshake; stderr:\nfatal: GITHUB_TOKEN is not set`,
      ]);
      const again = await toolCallErrorOf(backend.call(callOf(broken, 'echo', { text: 'x' })));
      expect(again.code).toBe('SERVER_UNAVAILABLE');
    } finally {
      await backend.close();
    }
  });

  it('names the command a server could not be spawned with', async () => {
    const backend = createMcpBackend({
      servers: { 'mcp-missing': { name: 'missing', config: { command: 'agent-spaces-no-such-command', args: ['--stdio'] } } },
    });
    try {
      const error = await toolCallErrorOf(backend.call(callOf({ ...capability, module: 'mcp-missing' }, 'echo', { text: 'x' })));
      expect(error.code).toBe('SERVER_UNAVAILABLE');
      expect(error.message).toBe(
        'cannot call tool "echo": MCP server "missing": failed to start "agent-spaces-no-such-command": spawn agent-spaces-no-such-command ENOENT',
      );
    } finally {
      await backend.close();
    }
  });
});

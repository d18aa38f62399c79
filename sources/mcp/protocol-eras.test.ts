// The MCP client against real servers of both protocol eras: a 2026-07-28 server built with the SDK v2
// (over HTTP and stdio) and 2025-11-25 servers built with the SDK v1 (the stdio fixture, and a
// Streamable HTTP server), reached the way a space reaches them: discovery, the client pool, and the
// bridge's approvals for what a server asks in the middle of a call.
import { createServer } from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBridge } from '../../bridge/index.js';
import { resolveConfig, type McpServerConfig } from '../../config/index.js';
import { createSpace } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import type { ApprovalHandler, ApprovalRequest, BridgeEvent, CapabilitySpec } from '../../core/index.js';
import { toolCallErrorOf } from '../../test/support/tool-call-error-of.js';
import { McpConnectError, connectMcpServer, listAllTools } from './connect.js';
import { discoverMcpServer } from './discover.js';
import { createMcpBackend, type McpBackend } from './mcp-backend.js';
import { callOf, capabilityFromTools } from './test-support/mcp-test-calls.js';
// @ts-expect-error -- a plain .mjs fixture (also started as a child process), without declarations
import { createModernHandler, DEPLOY_STATE, deployRounds } from './__fixtures__/modern-server.mjs';

const modernScript = fileURLToPath(new URL('./__fixtures__/modern-server.mjs', import.meta.url));
const legacyScript = fileURLToPath(new URL('./__fixtures__/fixture-server.mjs', import.meta.url));

interface DeployRound {
  env: string;
  state: string | null;
  answer: unknown;
}
const rounds = deployRounds as DeployRound[];

interface Listening {
  url: string;
  close(): Promise<void>;
}

async function listen(handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>): Promise<Listening> {
  const server: HttpServer = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The 2026-07-28 server over Streamable HTTP (its handler serves 2025 clients too unless `legacy: 'reject'`). */
function modernHttpServer(options: { legacy?: 'reject' } = {}): Promise<Listening> {
  const handler = toNodeHandler(createModernHandler(options) as Parameters<typeof toNodeHandler>[0]);
  return listen(async (request, response) => {
    await handler(request, response);
  });
}

/** A 2025-11-25 server (SDK v1), stateless Streamable HTTP: it has never heard of server/discover. */
function legacyHttpServer(): Promise<Listening> {
  return listen(async (request, response) => {
    const server = new McpServer({ name: 'old-http', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text: `${text} (legacy)` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
}

const modernStdio = (extra: Partial<McpServerConfig> = {}): McpServerConfig =>
  ({ command: process.execPath, args: [modernScript], ...extra }) as McpServerConfig;
const legacyStdio = (extra: Partial<McpServerConfig> = {}): McpServerConfig =>
  ({ command: process.execPath, args: [legacyScript], ...extra }) as McpServerConfig;

async function connectError(promise: Promise<unknown>): Promise<McpConnectError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof McpConnectError)) throw new Error(`expected an McpConnectError, got ${String(error)}`);
  return error;
}

/** A pool and a bridge over one server, as a space builds them; `approvals` records what the handler was asked. */
async function bridgeOver(server: string, config: McpServerConfig, approvalHandler?: ApprovalHandler) {
  const connection = await connectMcpServer(server, config);
  const capability: CapabilitySpec = capabilityFromTools(`mcp-${server}`, server, await listAllTools(connection.client));
  await connection.close();
  const backend = createMcpBackend({ servers: { [capability.module]: { name: server, config } } });
  const events: BridgeEvent[] = [];
  const bridge = createBridge({
    capabilities: [capability],
    backends: { [capability.module]: backend },
    onEvent: (event) => events.push(event),
    ...(approvalHandler ? { approvalHandler } : {}),
  });
  const call = (fn: string, args: Record<string, unknown>) =>
    bridge.handle({ capability: capability.module, function: fn, args }, { runId: 'run-1', signal: new AbortController().signal });
  return { backend, bridge, events, call, capability };
}

let modern: Listening;
let modernOnly: Listening;
let legacy: Listening;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  [modern, modernOnly, legacy] = await Promise.all([modernHttpServer(), modernHttpServer({ legacy: 'reject' }), legacyHttpServer()]);
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(async () => {
  await Promise.all([modern?.close(), modernOnly?.close(), legacy?.close()]);
});

describe('a 2026-07-28 server (SDK v2) over HTTP', () => {
  it('is discovered in the new era by default (auto): tools, schemas and server info', async () => {
    const connection = await connectMcpServer('modern', { url: modern.url });
    closers.push(() => connection.close());
    expect(connection.era).toBe('modern');
    expect(connection.protocolVersion).toBe('2026-07-28');
    const raw = await discoverMcpServer('modern', { url: modern.url });
    expect(raw.module).toBe('mcp-modern');
    expect(raw.description).toBe('MCP server modern-fixture');
    expect(raw.version).toBe('3.1.0');
    expect(raw.functions.map((fn) => `${fn.toolName}:${fn.resultKind}`).sort()).toEqual([
      'add:mcp-structured',
      'count:mcp-text',
      'deploy:mcp-text',
      'echo:mcp-text',
    ]);
  });

  it('performs calls through the pool: text, structured content, and progress on the request stream', async () => {
    const connection = await connectMcpServer('modern', { url: modern.url });
    const capability = capabilityFromTools('mcp-modern', 'modern', await listAllTools(connection.client));
    await connection.close();
    const backend: McpBackend = createMcpBackend({ servers: { 'mcp-modern': { name: 'modern', config: { url: modern.url } } } });
    closers.push(() => backend.close());
    await expect(backend.call(callOf(capability, 'echo', { text: 'hello' }))).resolves.toBe('hello (modern)');
    await expect(backend.call(callOf(capability, 'add', { a: 2, b: 3 }))).resolves.toEqual({ sum: 5 });
    const progress: unknown[] = [];
    await expect(backend.call(callOf(capability, 'count', { n: 3 }, { onProgress: (update) => progress.push(update) }))).resolves.toBe(
      'counted to 3',
    );
    expect(progress).toEqual([1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` })));
    expect(backend.connections()).toEqual([expect.objectContaining({ server: 'modern', transport: 'streamable-http', connects: 1 })]);
  });

  it('answers input_required through the approval handler, then retries with the answer and the request state untouched', async () => {
    const asked: ApprovalRequest[] = [];
    const { call, events, bridge } = await bridgeOver('modern', { url: modern.url }, (request) => {
      asked.push(request);
      return { approved: true, content: { confirm: true, note: 'ship it' } };
    });
    closers.push(() => bridge.close());
    const before = rounds.length;
    await expect(call('deploy', { env: 'prod' })).resolves.toBe('deployed to prod (confirm: true, note: ship it)');
    expect(asked).toEqual([
      expect.objectContaining({
        runId: 'run-1',
        capability: 'mcp-modern',
        function: 'deploy',
        params: { env: 'prod' },
        message: 'MCP server "modern" asks, during tool "deploy": Deploy to prod?',
        requestedSchema: expect.objectContaining({ required: ['confirm'] }),
      }),
    ]);
    // Two rounds reached the server: the first without state, the retry with the state byte for byte.
    expect(rounds.slice(before)).toEqual([
      { env: 'prod', state: null, answer: null },
      { env: 'prod', state: DEPLOY_STATE, answer: { action: 'accept', content: { confirm: true, note: 'ship it' } } },
    ]);
    expect(events.filter((event) => event.type.startsWith('approval')).map((event) => event.type)).toEqual([
      'approval-required',
      'approval-decided',
    ]);
  });

  it('takes a plain approval as yes: the yes/no field is filled in, optional ones left out', async () => {
    const { call, bridge } = await bridgeOver('modern', { url: modern.url }, () => true);
    closers.push(() => bridge.close());
    await expect(call('deploy', { env: 'staging' })).resolves.toBe('deployed to staging (confirm: true, note: none)');
  });

  it('fails the call with APPROVAL_DENIED when the handler denies, and does not retry it', async () => {
    const { call, bridge } = await bridgeOver('modern', { url: modern.url }, () => ({ approved: false, reason: 'not on a Friday' }));
    closers.push(() => bridge.close());
    const before = rounds.length;
    const error = await toolCallErrorOf(call('deploy', { env: 'friday' }));
    expect(error.code).toBe('APPROVAL_DENIED');
    expect(error.message).toMatch(/was denied: not on a Friday$/);
    expect(rounds.slice(before)).toEqual([{ env: 'friday', state: null, answer: null }]);
  });

  it('denies what the server asks when no approval handler is configured (headless), saying so', async () => {
    const { call, bridge } = await bridgeOver('modern', { url: modern.url });
    closers.push(() => bridge.close());
    const error = await toolCallErrorOf(call('deploy', { env: 'headless' }));
    expect(error.code).toBe('APPROVAL_DENIED');
    expect(error.message).toMatch(/no approval handler is configured/);
  });
});

describe('a program in a space calling a 2026-07-28 server', () => {
  it(
    "waits in the sandbox while the approval handler answers the server's input_required, then gets the result",
    { timeout: 120_000 },
    async () => {
      const root = await makeTempDir('eras-space');
      const config = resolveConfig({ capabilities: [], mcpServers: { modern: { url: modern.url } } }, { root, env: {} });
      const asked: ApprovalRequest[] = [];
      const space = await createSpace({
        config,
        isolation: 'in-process',
        approvalHandler: (request) => {
          asked.push(request);
          return { approved: true, content: { confirm: true, note: 'from the space' } };
        },
      });
      closers.push(() => space.close());
      await space.build();
      const result = await space.run(
        `import { deploy } from '@capabilities/mcp-modern';\nexport default await deploy({ env: 'space' });\n`,
      );
      expect(result.error, JSON.stringify(result.error)).toBeUndefined();
      expect(result.result).toBe('deployed to space (confirm: true, note: from the space)');
      expect(asked).toEqual([
        expect.objectContaining({
          capability: 'mcp-modern',
          function: 'deploy',
          message: 'MCP server "modern" asks, during tool "deploy": Deploy to space?',
        }),
      ]);
    },
  );
});

describe('a 2026-07-28 server (SDK v2) over stdio', () => {
  it('is spoken to in the new era when configured, and answers input_required through the bridge', { timeout: 60_000 }, async () => {
    const config = modernStdio({ protocol: '2026-07-28' });
    const connection = await connectMcpServer('modern-stdio', config);
    expect(connection.era).toBe('modern');
    expect(connection.transport).toBe('stdio');
    await connection.close();
    const { call, bridge } = await bridgeOver('modern-stdio', config, () => ({ approved: true, content: { confirm: true } }));
    closers.push(() => bridge.close());
    await expect(call('echo', { text: 'over stdio' })).resolves.toBe('over stdio (modern)');
    // The fixture checks the echoed request state itself: an altered one gives an error result.
    await expect(call('deploy', { env: 'edge' })).resolves.toBe('deployed to edge (confirm: true, note: none)');
  });

  it('is found in the new era by auto on stdio too (the probe runs on a sibling process)', { timeout: 60_000 }, async () => {
    const connection = await connectMcpServer('modern-stdio', modernStdio({ protocol: 'auto' }));
    closers.push(() => connection.close());
    expect(connection.era).toBe('modern');
  });

  it('uses the 2025 handshake on stdio unless configured, which a 2025-capable server answers', { timeout: 60_000 }, async () => {
    const connection = await connectMcpServer('modern-stdio', modernStdio());
    closers.push(() => connection.close());
    expect(connection.era).toBe('legacy');
    const result = await connection.client.callTool({ name: 'echo', arguments: { text: 'old way' } });
    expect(result.content).toEqual([{ type: 'text', text: 'old way (legacy)' }]);
  });
});

describe('2025-11-25 servers (SDK v1)', () => {
  it('auto falls back to the 2025 handshake when the server does not know server/discover (HTTP)', async () => {
    const connection = await connectMcpServer('old-http', { url: legacy.url });
    closers.push(() => connection.close());
    expect(connection.era).toBe('legacy');
    expect(connection.protocolVersion).toMatch(/^2025-/);
    const result = await connection.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hi (legacy)' }]);
  });

  it('auto falls back on stdio as well', { timeout: 60_000 }, async () => {
    const connection = await connectMcpServer('old-stdio', legacyStdio({ protocol: 'auto' }));
    closers.push(() => connection.close());
    expect(connection.era).toBe('legacy');
    expect(connection.serverInfo).toEqual({ name: 'fixture-server', version: '1.0.0' });
  });

  it(
    "asks the approval handler when the server sends elicitation/create mid-call, and answers with the handler's values",
    { timeout: 60_000 },
    async () => {
      const asked: ApprovalRequest[] = [];
      const { call, bridge } = await bridgeOver('old-stdio', legacyStdio(), (request) => {
        asked.push(request);
        return true;
      });
      closers.push(() => bridge.close());
      await expect(call('confirm', { action: 'drop the table' })).resolves.toBe('drop the table: accept {"confirm":true}');
      expect(asked).toEqual([
        expect.objectContaining({
          function: 'confirm',
          message: 'MCP server "old-stdio" asks, during tool "confirm": Really drop the table?',
        }),
      ]);
    },
  );

  it("cuts the server's secrets out of its question before a person sees it", { timeout: 60_000 }, async () => {
    const secret = 'sk-elicit-0123456789abcdef';
    const asked: ApprovalRequest[] = [];
    const { call, bridge } = await bridgeOver('old-stdio', legacyStdio({ env: { API_KEY: secret } }), (request) => {
      asked.push(request);
      return true;
    });
    closers.push(() => bridge.close());
    // The server quotes its key in the question (here because the action holds it).
    await call('confirm', { action: `spend with ${secret}` });
    expect(asked[0]?.message).toMatch(/^MCP server "old-stdio" asks, during tool "confirm": Really spend with .*\?$/);
    expect(asked[0]?.message).not.toContain(secret);
  });

  it(
    "says that a person's answer counts against a 2025 call's timeout when the call times out waiting for it",
    { timeout: 60_000 },
    async () => {
      let answer: (decision: boolean) => void = () => undefined;
      const { call, bridge } = await bridgeOver(
        'old-stdio',
        legacyStdio({ timeoutMs: 300 }),
        () => new Promise<boolean>((resolve) => (answer = resolve)),
      );
      closers.push(() => bridge.close());
      // The handler answers only after the call has failed: the call can only end by its timeout.
      const error = await toolCallErrorOf(call('confirm', { action: 'wait' }));
      answer(true);
      expect(error.code).toBe('TIMEOUT');
      expect(error.message).toMatch(/did not answer within 300 ms, which includes the time its question to a person took/);
    },
  );

  it('fails the call with APPROVAL_DENIED when the handler denies the elicitation', { timeout: 60_000 }, async () => {
    const { call, bridge } = await bridgeOver('old-stdio', legacyStdio(), () => ({ approved: false, reason: 'keep the table' }));
    closers.push(() => bridge.close());
    const error = await toolCallErrorOf(call('confirm', { action: 'drop the table' }));
    expect(error.code).toBe('APPROVAL_DENIED');
    expect(error.message).toMatch(/was denied: keep the table$/);
    // The connection stays usable.
    await expect(call('echo', { text: 'still here' })).resolves.toBe('still here');
  });
});

describe('a protocol the server does not speak', () => {
  it('fails a 2025 server configured for 2026-07-28 with an error naming the server and the protocol (HTTP)', async () => {
    const error = await connectError(connectMcpServer('old-http', { url: legacy.url, protocol: '2026-07-28' }));
    expect(error.code).toBe('MCP_PROTOCOL_MISMATCH');
    expect(error.message).toMatch(
      /^MCP server "old-http": http:\/\/127\.0\.0\.1:\d+\/mcp does not speak MCP 2026-07-28 \(protocol: '2026-07-28' in its config\)/,
    );
  });

  it('fails a 2025 server configured for 2026-07-28 on stdio the same way', { timeout: 60_000 }, async () => {
    const error = await connectError(connectMcpServer('old-stdio', legacyStdio({ protocol: '2026-07-28' })));
    expect(error.code).toBe('MCP_PROTOCOL_MISMATCH');
    expect(error.message).toMatch(/^MCP server "old-stdio": ".+" does not speak MCP 2026-07-28 \(protocol: '2026-07-28' in its config\)/);
  });

  it(
    'fails a 2026-only server configured for 2025-11-25, over HTTP and stdio, without trying legacy SSE',
    { timeout: 60_000 },
    async () => {
      const http = await connectError(connectMcpServer('new-only', { url: modernOnly.url, protocol: '2025-11-25' }));
      expect(http.code).toBe('MCP_PROTOCOL_MISMATCH');
      expect(http.message).toMatch(/^MCP server "new-only": .* does not speak MCP 2025-11-25 \(protocol: '2025-11-25' in its config\)/);
      const stdio = await connectError(
        connectMcpServer('new-only', modernStdio({ args: [modernScript, '--legacy', 'reject'], protocol: '2025-11-25' })),
      );
      expect(stdio.code).toBe('MCP_PROTOCOL_MISMATCH');
      expect(stdio.reason).toMatch(/does not speak MCP 2025-11-25/);
    },
  );

  it('makes a call to such a server fail with SERVER_UNAVAILABLE carrying the same reason', async () => {
    const config: McpServerConfig = { url: legacy.url, protocol: '2026-07-28' };
    const capability: CapabilitySpec = {
      module: 'mcp-old',
      namespace: 'mcpOld',
      source: { kind: 'mcp', server: 'old' },
      config: {},
      functions: [{ name: 'echo', toolName: 'echo', inputSchema: { type: 'object' }, resultKind: 'mcp-text' }],
    };
    const backend = createMcpBackend({ servers: { 'mcp-old': { name: 'old', config } } });
    closers.push(() => backend.close());
    const error = await toolCallErrorOf(backend.call(callOf(capability, 'echo', { text: 'x' })));
    expect(error.code).toBe('SERVER_UNAVAILABLE');
    expect(error.message).toMatch(/cannot call tool "echo": MCP server "old": .* does not speak MCP 2026-07-28/);
  });
});

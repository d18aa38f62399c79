// serveSpaces: two spaces of one host on one port, one MCP endpoint each (/spaces/<name>/mcp), against
// the SDK v2 client over Streamable HTTP and raw requests for what a client must not be able to do.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../test/support/example-space.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { serveSpaces, type RunningSpaces } from './serve-spaces.js';

const OPEN_VAULT = "import { vault } from '@capabilities/vault';\nexport default await vault.open();";
const ONE_TICKET =
  "import { crm } from '@capabilities/crm';\nexport default (await crm.createTicket({ customerId: 'c-003', subject: 'from a' })).customerId;";

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

let running: RunningSpaces;

async function client(url: string): Promise<Client> {
  const connected = new Client({ name: 'spaces-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await connected.connect(new StreamableHTTPClientTransport(new URL(url)));
  return connected;
}

function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((block) => block.text ?? '')
    .join('\n');
}

/** One raw 2026-07-28 `tools/call` of execute_code. */
async function rawCall(url: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'execute_code',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute_code', ...params, _meta: ENVELOPE } }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result?: Record<string, unknown> };
  return body.result ?? {};
}

beforeAll(async () => {
  const dir = await makeTempDir('serve-spaces');
  await mkdir(path.join(dir, 'tools', 'impl'), { recursive: true });
  await writeFile(path.join(dir, 'tools', 'impl', 'vault.mjs'), "export function open() { return 'the vault of b'; }\n");
  await writeFile(
    path.join(dir, 'tools', 'vault.json'),
    JSON.stringify({
      name: 'vault',
      implementation: './impl/vault.mjs',
      functions: [
        { name: 'open', description: 'Opens the vault', parameters: { type: 'object', properties: {} }, returns: { type: 'string' } },
      ],
    }),
  );
  running = await serveSpaces({
    http: { port: 0 },
    // One key for both: each space still seals with its own key derived from it.
    stateKey: 'a shared state key of at least thirty-two characters',
    host: { dir, registryFile: false, registry: { files: { vault: './tools/vault.json' } } },
    spaces: [
      { name: 'a', capabilities: [path.join(REPO, 'capabilities/crm.ts')] },
      { name: 'b', capabilities: ['files:vault'] },
    ],
  });
});

afterAll(async () => {
  await running?.close();
});

describe('serveSpaces: one MCP endpoint per space', () => {
  it('serves each space at /spaces/<name>/mcp, each seeing only its own modules', async () => {
    expect(Object.keys(running.urls)).toEqual(['a', 'b']);
    expect(running.urls.a).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/spaces\/a\/mcp$/);
    const [a, b] = await Promise.all([client(running.urls.a ?? ''), client(running.urls.b ?? '')]);
    try {
      const listed = await a.listTools();
      expect(listed.tools.map((tool) => tool.name).sort()).toEqual(['execute_code', 'get_types', 'search_tools']);
      const modulesOfA = textOf(await a.callTool({ name: 'search_tools', arguments: { query: '' } }));
      const modulesOfB = textOf(await b.callTool({ name: 'search_tools', arguments: { query: '' } }));
      expect(modulesOfA).toContain('crm');
      expect(modulesOfA).not.toContain('vault');
      expect(modulesOfB).toContain('vault');
      expect(modulesOfB).not.toContain('crm');

      const inB = await b.callTool({ name: 'execute_code', arguments: { code: OPEN_VAULT } });
      expect(inB.structuredContent).toMatchObject({ success: true, result: 'the vault of b' });
      const inA = await a.callTool({ name: 'execute_code', arguments: { code: OPEN_VAULT } });
      expect(inA.structuredContent).toMatchObject({ success: false });
      expect(textOf(inA)).toMatch(/@capabilities\/vault/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('answers a path of no space 404, naming the served spaces', async () => {
    const url = new URL('/spaces/c/mcp', running.urls.a);
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { jsonrpc: string; error: { message: string } };
    expect(body.jsonrpc).toBe('2.0');
    expect(body.error.message).toMatch(/serves the spaces "a", "b", each at \/spaces\/<name>\/mcp/);
    // The single-space path is not served here either.
    expect((await fetch(new URL('/mcp', running.urls.a), { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('applies the Host/Origin guard to every path, served or not', async () => {
    for (const target of [running.urls.b ?? '', new URL('/spaces/nope/mcp', running.urls.a).href]) {
      const response = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
        body: '{}',
      });
      expect(response.status).toBe(403);
    }
  });

  it("does not let one space's session or approval round be used at another", async () => {
    const initialize = await fetch(running.urls.a ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(initialize.status).toBe(200);
    const sessionId = initialize.headers.get('mcp-session-id') ?? '';
    expect(sessionId).not.toBe('');
    await initialize.text();
    const atB = await fetch(running.urls.b ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(atB.status).toBe(404);
    expect(((await atB.json()) as { error: { message: string } }).error.message).toMatch(/session not found/);

    // A run of a waits for approval; its sealed state, handed to b with an answer, does not open there.
    const round = (await rawCall(running.urls.a ?? '', { arguments: { code: ONE_TICKET } })) as {
      resultType?: string;
      inputRequests: Record<string, unknown>;
      requestState: string;
    };
    expect(round.resultType).toBe('input_required');
    const [callId] = Object.keys(round.inputRequests);
    const approve = { [callId ?? '']: { action: 'accept', content: { approve: true } } };
    const atOther = await rawCall(running.urls.b ?? '', {
      arguments: { code: ONE_TICKET },
      inputResponses: approve,
      requestState: round.requestState,
    });
    expect(atOther).toMatchObject({ isError: true });
    expect(textOf(atOther)).toMatch(/not sealed by this server/);
    // At a, where it was started, the same answer goes through.
    const done = await rawCall(running.urls.a ?? '', {
      arguments: { code: ONE_TICKET },
      inputResponses: approve,
      requestState: round.requestState,
    });
    expect(done.structuredContent).toMatchObject({ success: true, result: 'c-003', calls: 1 });
  });
});

// `serveSpace` over Streamable HTTP to real clients of both protocol eras on one port: the SDK v2 client
// speaking 2026-07-28 (no session, approvals as input_required rounds with sealed state), the SDK v1
// client speaking 2025-11-25 (a session, approvals as elicitation requests), and raw 2026-07-28 requests
// for what a well-behaved client never sends (a tampered or replayed requestState).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/support/temp-dir.js';
import { REPO } from '../test/support/example-space.js';
import { MAX_RESULT_CHARS } from './tool-text.js';
import { serveSpace, type RunningServer } from './serve.js';

const TWO_TICKETS = [
  "import { crm } from '@capabilities/crm';",
  "const made = await Promise.all([crm.createTicket({ customerId: 'c-001', subject: 'first' }), crm.createTicket({ customerId: 'c-002', subject: 'second' })]);",
  'export default made.map((ticket) => ticket.customerId);',
].join('\n');
const ONE_TICKET =
  "import { crm } from '@capabilities/crm';\nexport default (await crm.createTicket({ customerId: 'c-003', subject: 'third' })).customerId;";
// About 3.5 pages of text: numbered lines, so a page boundary in the wrong place shows.
const BIG = `export default Array.from({ length: 9000 }, (_, i) => 'line ' + i + ' ' + 'x'.repeat(16)).join('\\n');`;

type Decide = (message: string) => { action: 'accept' | 'decline' | 'cancel'; content?: { approve: boolean } };

/** A 2026-07-28 client of the SDK v2, answering approvals with `decide` (no elicitation capability when it is absent). */
async function modernClient(url: string, decide?: Decide): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client(
    { name: 'modern', version: '1' },
    { ...(decide ? { capabilities: { elicitation: {} } } : {}), versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  if (decide) {
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(String(request.params.message));
      return decide(String(request.params.message));
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, asked };
}

/** A 2025-11-25 client of the SDK v1 (a session), answering elicitation requests with `decide`. */
async function legacyClient(
  url: string,
  decide?: Decide,
): Promise<{ client: LegacyClient; transport: LegacyHttpTransport; asked: string[] }> {
  const asked: string[] = [];
  const client = new LegacyClient({ name: 'legacy', version: '1' }, decide ? { capabilities: { elicitation: {} } } : {});
  if (decide) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return decide(request.params.message);
    });
  }
  const transport = new LegacyHttpTransport(new URL(url));
  await client.connect(transport);
  return { client, transport, asked };
}

const approveAll: Decide = () => ({ action: 'accept', content: { approve: true } });
const declineAll: Decide = () => ({ action: 'decline' });

function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((block) => block.text ?? '')
    .join('\n');
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

interface InputRequired {
  resultType: 'input_required';
  inputRequests: Record<string, { method: string; params: { message: string } }>;
  requestState: string;
}

/** One raw 2026-07-28 `tools/call` of execute_code, as the wire has it. */
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
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  expect(body.error).toBeUndefined();
  return body.result ?? {};
}

describe('serveSpace over HTTP: both protocol eras on one port', () => {
  let running: RunningServer;
  let url: string;

  beforeAll(async () => {
    const root = await makeTempDir('serve-eras');
    const crm = path.relative(root, path.join(REPO, 'capabilities/crm.ts')).split(path.sep).join('/');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [crm] }));
    running = await serveSpace({ cwd: root, http: { port: 0 } });
    url = running.url ?? '';
  });

  afterAll(async () => {
    await running.close();
  });

  it("answers a 2026-07-28 client without a session, its approvals answered by the client's elicitation handler", async () => {
    const { client, asked } = await modernClient(url, approveAll);
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['execute_code', 'get_types', 'search_tools']);
      const run = await client.callTool({ name: 'execute_code', arguments: { code: TWO_TICKETS } });
      expect(run.structuredContent).toMatchObject({ success: true, result: ['c-001', 'c-002'], calls: 2 });
      // Text beside the structured content, for clients that read only text.
      expect(textOf(run)).toContain('"c-001"');
      expect(asked).toHaveLength(2);
      expect(asked.join('\n')).toMatch(/c-001[\s\S]*c-002|c-002[\s\S]*c-001/);
    } finally {
      await client.close();
    }
  });

  it("denies a 2026-07-28 client's call the user declined, and the program sees the denial", async () => {
    const { client, asked } = await modernClient(url, declineAll);
    try {
      const run = await client.callTool({ name: 'execute_code', arguments: { code: ONE_TICKET } });
      expect(asked).toHaveLength(1);
      expect(run.isError).toBe(true);
      expect(run.structuredContent).toMatchObject({ success: false, error: { message: expect.stringMatching(/declined/) } });
    } finally {
      await client.close();
    }
  });

  it('denies approvals with a reason when a 2026-07-28 client cannot answer them (no elicitation capability)', async () => {
    const { client } = await modernClient(url);
    try {
      const run = await client.callTool({ name: 'execute_code', arguments: { code: ONE_TICKET } });
      expect(run.isError).toBe(true);
      expect(textOf(run)).toMatch(/declared no elicitation capability/);
    } finally {
      await client.close();
    }
  });

  it('lists every approval a run waits for in one input_required round, and one retry answers them all', async () => {
    let round = (await rawCall(url, { arguments: { code: TWO_TICKETS } })) as unknown as InputRequired;
    // A retry that answers nothing is asked again, with whatever waits by then: both parallel calls, sooner or later.
    for (let retries = 0; round.resultType === 'input_required' && Object.keys(round.inputRequests).length < 2 && retries < 50; retries++) {
      round = (await rawCall(url, { arguments: { code: TWO_TICKETS }, requestState: round.requestState })) as unknown as InputRequired;
    }
    const keys = Object.keys(round.inputRequests);
    expect(keys).toHaveLength(2);
    const answers = Object.fromEntries(keys.map((key) => [key, { action: 'accept', content: { approve: true } }]));
    const done = await rawCall(url, { arguments: { code: TWO_TICKETS }, inputResponses: answers, requestState: round.requestState });
    expect(done.structuredContent).toMatchObject({ success: true, result: ['c-001', 'c-002'], calls: 2 });
  });

  it('refuses a tampered requestState and a replayed one; the waiting run goes on with the newest state', async () => {
    const first = (await rawCall(url, { arguments: { code: ONE_TICKET } })) as unknown as InputRequired;
    expect(first.resultType).toBe('input_required');
    const [callId] = Object.keys(first.inputRequests);
    expect(first.inputRequests[callId ?? '']?.method).toBe('elicitation/create');
    expect(first.inputRequests[callId ?? '']?.params.message).toContain('c-003');
    const approve = { [callId ?? '']: { action: 'accept', content: { approve: true } } };

    // One character changed in the sealed part: not the server's.
    const state = first.requestState;
    const flipped = `${state.slice(0, 20)}${state[20] === 'A' ? 'B' : 'A'}${state.slice(21)}`;
    const tampered = await rawCall(url, { arguments: { code: ONE_TICKET }, inputResponses: approve, requestState: flipped });
    expect(tampered).toMatchObject({ isError: true });
    expect(textOf(tampered)).toMatch(/not sealed by this server/);

    // A retry that answers nothing uses up the state; the run still waits and is asked again.
    const again = (await rawCall(url, { arguments: { code: ONE_TICKET }, requestState: state })) as unknown as InputRequired;
    expect(again.resultType).toBe('input_required');
    expect(Object.keys(again.inputRequests)).toEqual([callId]);
    const replayed = await rawCall(url, { arguments: { code: ONE_TICKET }, inputResponses: approve, requestState: state });
    expect(textOf(replayed)).toMatch(/already used \(a replay\)/);

    const done = await rawCall(url, { arguments: { code: ONE_TICKET }, inputResponses: approve, requestState: again.requestState });
    expect(done.structuredContent).toMatchObject({ success: true, result: 'c-003', calls: 1 });
    const late = await rawCall(url, { arguments: { code: ONE_TICKET }, inputResponses: approve, requestState: again.requestState });
    expect(textOf(late)).toMatch(/not waiting here/);
  });

  it('gives a 2025-11-25 client a session and asks its approvals by elicitation (not the stateless fallback, which would deny them)', async () => {
    const { client, transport, asked } = await legacyClient(url, approveAll);
    try {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const run = await client.callTool({ name: 'execute_code', arguments: { code: TWO_TICKETS } });
      expect(run.structuredContent).toMatchObject({ success: true, result: ['c-001', 'c-002'], calls: 2 });
      expect(asked).toHaveLength(2);
    } finally {
      await client.close();
    }
    const declining = await legacyClient(url, declineAll);
    try {
      const run = await declining.client.callTool({ name: 'execute_code', arguments: { code: ONE_TICKET } });
      expect(declining.asked).toHaveLength(1);
      expect(run.structuredContent).toMatchObject({ success: false, error: { message: expect.stringMatching(/declined/) } });
    } finally {
      await declining.client.close();
    }
  });

  it('denies approvals with a reason when a 2025-11-25 client does not support elicitation', async () => {
    const { client } = await legacyClient(url);
    try {
      const run = await client.callTool({ name: 'execute_code', arguments: { code: ONE_TICKET } });
      expect(run.isError).toBe(true);
      expect(textOf(run)).toMatch(/does not support elicitation/);
    } finally {
      await client.close();
    }
  });

  it('returns a large result with a resource link a 2026-07-28 client reads in pages', async () => {
    const { client } = await modernClient(url);
    try {
      const run = await client.callTool({ name: 'execute_code', arguments: { code: BIG } });
      const link = (run.content as { type: string; uri?: string }[]).find((block) => block.type === 'resource_link');
      expect(link?.uri).toMatch(/^agent-spaces:\/\/results\/[^/]+\/1$/);
      const { pages } = (run.structuredContent as { resultPages: { pages: number } }).resultPages;
      expect(pages).toBeGreaterThan(1);
      let whole = '';
      for (let page = 1; page <= pages; page++) {
        const read = await client.readResource({ uri: (link?.uri ?? '').replace(/\/1$/, `/${page}`) });
        const text = (read.contents[0] as { text: string }).text;
        expect(text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
        whole += text;
      }
      expect(whole).toContain('"line 0 xxxxxxxxxxxxxxxx\\nline 1 ');
      expect(whole).toContain('line 8999 xxxxxxxxxxxxxxxx"');
      await expect(client.readResource({ uri: (link?.uri ?? '').replace(/\/1$/, `/${pages + 1}`) })).rejects.toThrow(/does not exist/);
    } finally {
      await client.close();
    }
  });

  it('lets a 2025-11-25 session read its own large result in pages, and no other session', async () => {
    const owner = await legacyClient(url);
    const other = await legacyClient(url);
    try {
      const run = await owner.client.callTool({ name: 'execute_code', arguments: { code: BIG } });
      const uri = (run.content as { type: string; uri?: string }[]).find((block) => block.type === 'resource_link')?.uri ?? '';
      const second = await owner.client.readResource({ uri: uri.replace(/\/1$/, '/2') });
      expect((second.contents[0] as { text: string }).text).toMatch(/line \d+ x{16}/);
      await expect(other.client.readResource({ uri })).rejects.toThrow(/belongs to another session/);
    } finally {
      await owner.client.close();
      await other.client.close();
    }
  });
});

describe('serveSpace over HTTP: the hardening holds for 2026-07-28 requests too', () => {
  const TOKEN = 'modern-token';
  let running: RunningServer;
  let url: string;

  beforeAll(async () => {
    const root = await makeTempDir('serve-eras-guard');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    running = await serveSpace({ cwd: root, http: { port: 0, token: TOKEN, maxBodyBytes: 64 * 1024 } });
    url = running.url ?? '';
  });

  afterAll(async () => {
    await running.close();
  });

  const discover = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } });
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'server/discover',
    ...extra,
  });

  it('answers server/discover with the token, and refuses it without, from another origin, or too large', async () => {
    const ok = await fetch(url, { method: 'POST', headers: headers({ authorization: `Bearer ${TOKEN}` }), body: discover });
    expect(ok.status).toBe(200);
    expect(JSON.stringify(await ok.json())).toContain('2026-07-28');
    expect(ok.headers.get('mcp-session-id')).toBeNull();
    expect((await fetch(url, { method: 'POST', headers: headers(), body: discover })).status).toBe(401);
    expect(
      (
        await fetch(url, {
          method: 'POST',
          headers: headers({ authorization: `Bearer ${TOKEN}`, origin: 'https://attacker.example' }),
          body: discover,
        })
      ).status,
    ).toBe(403);
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'execute_code', arguments: { code: 'x'.repeat(128 * 1024) }, _meta: ENVELOPE },
    });
    expect(
      (
        await fetch(url, {
          method: 'POST',
          headers: headers({ authorization: `Bearer ${TOKEN}`, 'mcp-method': 'tools/call', 'mcp-name': 'execute_code' }),
          body: huge,
        })
      ).status,
    ).toBe(413);
  });
});

/**
 * `serve` as an MCP server for remote callers, in both protocol eras (2025-11-25 sessions, 2026-07-28
 * stateless requests): one caller's approval state, results and session stay its own; headers must
 * match the body; batches, runs left waiting for approval and large results are bounded; execute_code's
 * progress notifications are bounded, and a remote caller's program sees no stored task results.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpace, type Space } from '../../space/index.js';
import { serveSpace, type RunningServer } from '../../server/serve.js';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createAgentSpacesMcpServer } from '../../server/create-mcp-server.js';
import { MAX_CALL_NOTIFICATIONS } from '../../server/progress-sender.js';
import { createRunRouter } from '../../server/run-router.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'attacker', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

const NEEDS_APPROVAL = (customer: string) =>
  `import { crm } from '@capabilities/crm';\nexport default (await crm.createTicket({ customerId: '${customer}', subject: 'attack' })).customerId;`;

const BIG_RESULT = `export default Array.from({ length: 9000 }, (_, i) => 'line ' + i + ' ' + 'x'.repeat(16)).join('\\n');`;

interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** One raw POST to the MCP endpoint; an SSE answer is read as its JSON-RPC messages. */
async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  let parsed: unknown = text;
  if (type.includes('text/event-stream')) {
    parsed = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as unknown);
  } else if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

const MODERN_HEADERS = (method: string, name?: string): Record<string, string> => ({
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});

/** A 2026-07-28 `tools/call` of execute_code; the JSON-RPC result (or error). */
async function modernCall(url: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await post(
    url,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute_code', ...params, _meta: ENVELOPE } },
    MODERN_HEADERS('tools/call', 'execute_code'),
  );
  expect(answer.status).toBe(200);
  const message = (Array.isArray(answer.body) ? answer.body.at(-1) : answer.body) as {
    result?: Record<string, unknown>;
    error?: Record<string, unknown>;
  };
  return message.result ?? { rpcError: message.error };
}

function textOf(result: Record<string, unknown>): string {
  return ((result.content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

/** A 2025-11-25 session opened by hand: its id. */
async function openLegacySession(url: string, capabilities: Record<string, unknown> = {}): Promise<string> {
  const init = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw-legacy', version: '1' } },
  });
  expect(init.status).toBe(200);
  const session = init.headers.get('mcp-session-id') ?? '';
  expect(session).not.toBe('');
  const ready = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
  );
  expect(ready.status).toBe(202);
  return session;
}

describe('serve over HTTP, both eras', () => {
  let running: RunningServer;
  let stranger: RunningServer;
  let url: string;

  beforeAll(async () => {
    const spaceWith = async (name: string, sandbox: Record<string, unknown>): Promise<string> => {
      const dir = await makeTempDir(name);
      const crm = path.relative(dir, path.join(REPO, 'capabilities/crm.ts')).split(path.sep).join('/');
      await writeFile(path.join(dir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [crm], sandbox }));
      return dir;
    };
    // Three workers: some tests park two runs waiting for approval at once (at most slots - 1 may wait).
    running = await serveSpace({ cwd: await spaceWith('attack3-serve', { workers: 3 }), http: { port: 0, maxRequestsPerSession: 2 } });
    url = running.url ?? '';
    // Another server of the same space (default two workers), with a key of its own: a replica that was not given the shared key.
    stranger = await serveSpace({ cwd: await spaceWith('attack3-serve-stranger', {}), http: { port: 0 } });
  }, 180_000);

  afterAll(async () => {
    await running?.close();
    await stranger?.close();
  });

  /** A parked 2026-07-28 run waiting for one approval: its state and the call id it waits on. */
  async function parkedRun(customer: string): Promise<{ state: string; callId: string }> {
    const round = await modernCall(url, { arguments: { code: NEEDS_APPROVAL(customer) } });
    expect(round.resultType).toBe('input_required');
    const callId = Object.keys(round.inputRequests as object)[0] ?? '';
    return { state: String(round.requestState), callId };
  }
  const approve = (callId: string) => ({ [callId]: { action: 'accept', content: { approve: true } } });

  it("one caller's requestState cannot approve another caller's waiting run (answers keyed by the other run's call ids do nothing)", async () => {
    const victim = await parkedRun('c-001');
    const attacker = await parkedRun('c-002');
    // The attacker's own (valid) state, with the victim's call id approved.
    const swapped = await modernCall(url, {
      arguments: { code: NEEDS_APPROVAL('c-002') },
      inputResponses: approve(victim.callId),
      requestState: attacker.state,
    });
    expect(swapped.resultType).toBe('input_required');
    expect(Object.keys(swapped.inputRequests as object)).toEqual([attacker.callId]);
    // The victim's run still waits for its own client, who approves it with its own state.
    const done = await modernCall(url, {
      arguments: { code: NEEDS_APPROVAL('c-001') },
      inputResponses: approve(victim.callId),
      requestState: victim.state,
    });
    expect(done.structuredContent).toMatchObject({ success: true, result: 'c-001', calls: 1 });
    const attackerDone = await modernCall(url, {
      arguments: { code: 'export default 0' },
      inputResponses: approve(attacker.callId),
      requestState: String(swapped.requestState),
    });
    // The retry's own `code` is ignored: the state names the run, which goes on with its program.
    expect(attackerDone.structuredContent).toMatchObject({ success: true, result: 'c-002' });
  });

  it('a requestState from a server with another key is refused, and a result handle is not a requestState (nor the reverse)', async () => {
    const parked = await parkedRun('c-003');
    const elsewhere = await modernCall(stranger.url ?? '', {
      arguments: { code: NEEDS_APPROVAL('c-003') },
      inputResponses: approve(parked.callId),
      requestState: parked.state,
    });
    expect(textOf(elsewhere)).toMatch(/not sealed by this server/);

    const big = await modernCall(url, { arguments: { code: BIG_RESULT } });
    const pageUri = String((big.structuredContent as { resultPages: { uri: string } }).resultPages.uri);
    const handle = /^agent-spaces:\/\/results\/([^/]+)\/1$/.exec(pageUri)?.[1] ?? '';
    const asState = await modernCall(url, {
      arguments: { code: NEEDS_APPROVAL('c-003') },
      inputResponses: approve(parked.callId),
      requestState: handle,
    });
    expect(textOf(asState)).toMatch(/not sealed by this server/);
    const asHandle = await post(
      url,
      { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: `agent-spaces://results/${parked.state}/1`, _meta: ENVELOPE } },
      MODERN_HEADERS('resources/read', `agent-spaces://results/${parked.state}/1`),
    );
    expect(JSON.stringify(asHandle.body)).toMatch(/not a result handle of this server/);
    // The run is untouched by all this and finishes with its own state.
    const done = await modernCall(url, {
      arguments: { code: NEEDS_APPROVAL('c-003') },
      inputResponses: approve(parked.callId),
      requestState: parked.state,
    });
    expect(done.structuredContent).toMatchObject({ success: true, result: 'c-003' });
  });

  it("a session cannot read a result stored for clients without a session, and a stateless caller cannot read a session's result", async () => {
    const big = await modernCall(url, { arguments: { code: BIG_RESULT } });
    const statelessUri = String((big.structuredContent as { resultPages: { uri: string } }).resultPages.uri);
    const session = await openLegacySession(url);
    const fromSession = await post(
      url,
      { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: statelessUri } },
      { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(JSON.stringify(fromSession.body)).toMatch(/belongs to another session/);

    const sessionRun = await post(
      url,
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'execute_code', arguments: { code: BIG_RESULT } } },
      { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    );
    const sessionUri = /agent-spaces:\/\/results\/[^/"]+\/1/.exec(JSON.stringify(sessionRun.body))?.[0] ?? '';
    expect(sessionUri).not.toBe('');
    const fromStateless = await post(
      url,
      { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: sessionUri, _meta: ENVELOPE } },
      MODERN_HEADERS('resources/read', sessionUri),
    );
    expect(JSON.stringify(fromStateless.body)).toMatch(/belongs to another session/);
    expect(JSON.stringify(fromStateless.body)).not.toContain('line 0 x');
  });

  it('refuses a 2026-07-28 request whose Mcp-Method / Mcp-Name headers do not match its body', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'execute_code', arguments: { code: 'export default 1' }, _meta: ENVELOPE },
    };
    const wrongMethod = await post(url, body, MODERN_HEADERS('tools/list'));
    expect(wrongMethod.status).toBe(400);
    const wrongName = await post(url, body, MODERN_HEADERS('tools/call', 'search_tools'));
    expect(wrongName.status).toBe(400);
    const wrongVersion = await post(url, body, { ...MODERN_HEADERS('tools/call', 'execute_code'), 'mcp-protocol-version': '2025-11-25' });
    expect(wrongVersion.status).toBeGreaterThanOrEqual(400);
  });

  it('refuses a batch of 2026-07-28 requests, and a 2026-07-28 request carrying an unknown session id', async () => {
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'execute_code', arguments: { code: 'export default 1' }, _meta: ENVELOPE },
    });
    const batch = await post(url, [call(1), call(2)], MODERN_HEADERS('tools/call', 'execute_code'));
    expect(batch.status).toBe(400);
    const unknown = await post(url, call(3), {
      ...MODERN_HEADERS('tools/call', 'execute_code'),
      'mcp-session-id': '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.status).toBe(404);
  });

  // A run waiting for approval keeps its sandbox slot (serve gives each program a worker of its own, two
  // by default), and a 2026-07-28 run waits for its client's retry for 10 minutes: at most slots - 1
  // runs may wait for approval at once, so that other callers' programs still run; a call of another
  // run that needs approval meanwhile is denied, saying why.
  it("runs left waiting for approval cannot take every sandbox slot: other callers' programs still run", async () => {
    const strangerUrl = stranger.url ?? '';
    const first = await modernCall(strangerUrl, { arguments: { code: NEEDS_APPROVAL('c-001') } });
    expect(first.resultType).toBe('input_required');
    const second = await modernCall(strangerUrl, { arguments: { code: NEEDS_APPROVAL('c-002') } });
    expect(second.resultType).not.toBe('input_required');
    expect(textOf(second)).toMatch(/too many runs are waiting for approval/);
    const other = await modernCall(strangerUrl, { arguments: { code: 'export default 42' } });
    expect(other.structuredContent).toMatchObject({ success: true, result: 42 });
    // The first run still waits for its client, who can answer it.
    const callId = Object.keys(first.inputRequests as object)[0] ?? '';
    const done = await modernCall(strangerUrl, {
      arguments: { code: NEEDS_APPROVAL('c-001') },
      inputResponses: approve(callId),
      requestState: first.requestState,
    });
    expect(done.structuredContent).toMatchObject({ success: true, result: 'c-001' });
  });

  // The transport of a 2025-11-25 session accepts JSON-RPC batches of up to 100 messages: the cap on
  // requests open at once (maxRequestsPerSession) counts each request of a batch, and a batch that does
  // not fit is refused (429).
  it('a JSON-RPC batch in a 2025-11-25 session counts each of its requests against maxRequestsPerSession', async () => {
    const session = await openLegacySession(url);
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'execute_code', arguments: { code: `export default ${id}` } },
    });
    const tooMany = await post(url, [call(1), call(2), call(3)], { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(tooMany.status).toBe(429);
    // A batch that fits still works (older clients batch), and the session is not left counting it.
    const fits = await post(url, [call(4), call(5)], { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(fits.status).toBe(200);
    expect(JSON.stringify(fits.body)).toMatch(/Result: 4[\s\S]*|"result":4/);
    const again = await post(url, [call(6), call(7)], { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(again.status).toBe(200);
  });

  // execute_code's text shows the result as indented JSON, and indentation grows with depth: a small
  // result nested deep around a wide array would become hundreds of megabytes on the host and hold the
  // server's event loop (every caller waits). The indented size is bounded before it is made; past the
  // bound the text is compact.
  it('a small result nested deep around a wide array is not indented into hundreds of megabytes on the host', async () => {
    const code =
      'let nested: unknown = new Array(60_000).fill(0);\nfor (let level = 0; level < 1_000; level++) nested = [nested];\nexport default nested;';
    const answer = await modernCall(url, { arguments: { code } });
    expect(answer.structuredContent).toMatchObject({ success: true, truncated: true });
    // Compact, it is about 122,000 characters: two pages. Indented, it would be 120 million (cut to 8 Mi: 128 pages).
    expect((answer.structuredContent as { resultPages: { pages: number } }).resultPages.pages).toBeLessThanOrEqual(3);
  });

  it("a 2026-07-28 request carrying a live session's id is refused by the session; dressed as 2025 it stays in the session's scope", async () => {
    const session = await openLegacySession(url);
    const call = {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'execute_code', arguments: { code: BIG_RESULT }, _meta: ENVELOPE },
    };
    const modern = await post(url, call, { ...MODERN_HEADERS('tools/call', 'execute_code'), 'mcp-session-id': session });
    expect(modern.status).toBe(400);
    expect(JSON.stringify(modern.body)).toMatch(/Unsupported protocol version: 2026-07-28/);
    // The same body under the session's version: served by the session, its pages the session's.
    const dressed = await post(url, call, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(dressed.status).toBe(200);
    const uri = /agent-spaces:\/\/results\/[^/"]+\/1/.exec(JSON.stringify(dressed.body))?.[0] ?? '';
    expect(uri).not.toBe('');
    const stolen = await post(
      url,
      { jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri, _meta: ENVELOPE } },
      MODERN_HEADERS('resources/read', uri),
    );
    expect(JSON.stringify(stolen.body)).toMatch(/belongs to another session/);
    expect(JSON.stringify(stolen.body)).not.toContain('line 0 x');
  });
});

describe("serve's execute_code progress", () => {
  let space: Space;
  let client: Client;
  beforeAll(async () => {
    const root = await makeTempDir('attack-progress');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    const router = createRunRouter();
    space = await createSpace({ cwd: root, isolation: 'worker', onEvent: router.onEvent, approvalHandler: router.approve });
    const server = await createAgentSpacesMcpServer(space, router, { name: 'agent-spaces', version: '0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'attacker', version: '1' });
    await client.connect(clientSide);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await space?.close();
  });

  it("a remote caller's program sees no stored results: task-storage lists none and refuses every ref", async () => {
    const code =
      "import { list, read } from '@capabilities/task-storage';\nconst refused = await Promise.all(['/etc/passwd', '../runs/x/results/step-1.json', ''].map((ref) => read({ ref }).then(() => 'read', (error: { code: string }) => error.code)));\nexport default { listed: await list(), refused };";
    const run = await client.callTool({ name: 'execute_code', arguments: { code } });
    expect(run.structuredContent).toMatchObject({
      success: true,
      result: { listed: [], refused: ['FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN'] },
    });
  });

  // Progress notifications are bounded as log lines are: a program's maxCalls calls must not become as
  // many notifications to the client.
  it('a program making many calls sends a bounded number of progress notifications', async () => {
    const progress: string[] = [];
    const code =
      "import { parse } from '@capabilities/std-json';\nfor (let i = 0; i < 600; i++) await parse({ text: '1' });\nfor (let i = 0; i < 600; i++) console.log('line', i);\nexport default 'done';";
    const run = await client.callTool({ name: 'execute_code', arguments: { code } }, undefined, {
      onprogress: (notification) => progress.push(notification.message ?? ''),
      timeout: 60_000,
    });
    expect(run.isError).toBeFalsy();
    expect(progress.filter((line) => line.startsWith('std-json.parse'))).toHaveLength(MAX_CALL_NOTIFICATIONS - 1);
    expect(progress.length).toBeLessThanOrEqual(MAX_CALL_NOTIFICATIONS + 200);
  }, 60_000);
});

/**
 * A third attacker's pass, over the surfaces added on 2026-11-22: `serve` in both MCP eras (sealed
 * approval state, approval rounds, result pages, batches and headers), the OpenAPI source (hostile
 * specs, path and header injection, where credentials go), inferred result types (hostile shapes and
 * property names, the store file) and durable runs. As in the earlier passes: each `it.fails` is a
 * finding that still holds (its comment names severity, owner and where to fix; turn it into a plain
 * `it` once fixed), each plain `it` an attack that is stopped, kept as a regression. Ids: M… serve/MCP,
 * O… OpenAPI, I… inferred results, D… durable.
 */
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, stat, symlink, writeFile, type FileHandle } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResultRecorder, type BackendCall } from '../../bridge/index.js';
import { applyInferredResults, readInferredResults } from '../../compiler/index.js';
import { emitDeclarations } from '../../compiler/declarations/emit-declarations.js';
import { resolveConfig, type ResolvedConfig } from '../../config/index.js';
import { MAX_INFERRED_FILE_BYTES, type CapabilitySpec, type FunctionSpec } from '../../core/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { decideStoredApproval, getStoredApproval, requestStoredApproval, type StoredApproval } from '../../durable/approval-store.js';
import type { DurableError } from '../../durable/durable-error.js';
import { openRunJournal } from '../../durable/run-journal.js';
import { createPool, ensureStoreSchema, type Pool } from '../../durable/store.js';
import { startPostgresCluster, type PostgresCluster } from '../../durable/test-support/postgres-cluster.js';
import { serveSpace, type RunningServer } from '../../server/serve.js';
import { discoverApi, openapiSource } from '../../sources/openapi/index.js';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';
import { typeCheckFiles } from '../support/tsc.js';

/** A real HTTP server that records what it was sent and answers JSON (or what `answer` says). */
interface RecordingServer {
  origin: string;
  seen: { url: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

interface CannedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

async function startRecordingServer(answer?: (request: IncomingMessage) => CannedAnswer | undefined): Promise<RecordingServer> {
  const seen: RecordingServer['seen'] = [];
  const server: Server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    const custom = answer?.(request);
    if (custom) {
      response.writeHead(custom.status, custom.headers ?? {}).end(custom.body ?? '');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: request.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const API_KEY = 'sk-attack3-openapi-9c1d7e';

describe('attack pass 3: a hostile OpenAPI spec and hostile arguments', () => {
  let home: RecordingServer;
  let other: RecordingServer;
  let space: Space;
  let root: string;

  const ok = (description = 'ok') => ({ '200': { description, content: { 'application/json': { schema: { type: 'object', properties: { url: { type: 'string' } } } } } } });

  beforeAll(async () => {
    other = await startRecordingServer();
    // /api/away redirects to another origin (not in redirectHosts); /api/huge answers 2 MB.
    home = await startRecordingServer((request): CannedAnswer | undefined => {
      if (request.url?.startsWith('/api/away')) return { status: 302, headers: { location: `${other.origin}/stolen` } };
      if (request.url?.startsWith('/api/huge')) return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'x'.repeat(2 * 1024 * 1024) }) };
      return undefined;
    });
    root = await makeTempDir('attack3-openapi');
    const spec = {
      openapi: '3.0.3',
      info: { title: 'hostile', version: '1' },
      // No baseUrl in the config: the spec's servers decide where calls (and the configured headers) go.
      servers: [{ url: `${home.origin}/api` }],
      paths: {
        '/files/{name}': { get: { operationId: 'getFile', parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }], responses: ok() } },
        '/echo': { get: { operationId: 'echoHeader', parameters: [{ name: 'x-note', in: 'header', schema: { type: 'string' } }], responses: ok() } },
        // An operation whose own server is another origin than the document's.
        '/elsewhere': { get: { operationId: 'elsewhere', servers: [{ url: `${other.origin}/api` }], responses: ok() } },
        '/proto/{__proto__}': { get: { operationId: 'protoParam', parameters: [{ name: '__proto__', in: 'path', required: true, schema: { type: 'string' } }], responses: ok() } },
        '/away': { get: { operationId: 'away', responses: ok() } },
        '/huge': { get: { operationId: 'huge', responses: ok() } },
        '/ctor': { get: { operationId: 'constructor', parameters: [{ name: 'constructor', in: 'query', schema: { type: 'string' } }], responses: ok() } },
      },
    };
    await writeFile(path.join(root, 'hostile.json'), JSON.stringify(spec));
    const config = resolveConfig({ capabilities: [], openapi: { hostile: { spec: 'hostile.json', headers: { 'x-api-key': '${HOSTILE_KEY}' } } } }, { root, env: { HOSTILE_KEY: API_KEY } });
    space = await createSpace({ config, sources: [openapiSource], isolation: 'in-process' });
    const build = await space.build();
    expect(build.errors).toEqual([]);
  }, 120_000);

  afterAll(async () => {
    await space?.close();
    await home?.close();
    await other?.close();
  });

  async function run(body: string): Promise<{ success: boolean; result?: unknown; error?: { code?: string; message: string } }> {
    return space.run(`import * as api from '@capabilities/openapi-hostile';\n${body}`, { check: false });
  }

  it('keeps path parameters inside their segment: ../, %2e%2e, ?, # and / are percent-encoded, a bare .. refused', async () => {
    const tries = ['../admin', '%2e%2e', '..%2f..%2fetc', 'a?admin=1', 'a#frag', 'a/b'];
    const result = await run(`const out = []; for (const name of ${JSON.stringify(tries)}) out.push((await api.getFile({ name })).url); return out;`);
    expect(result.error).toBeUndefined();
    const urls = result.result as string[];
    expect(urls).toEqual(['/api/files/..%2Fadmin', '/api/files/%252e%252e', '/api/files/..%252f..%252fetc', '/api/files/a%3Fadmin%3D1', '/api/files/a%23frag', '/api/files/a%2Fb']);
    for (const dots of ['..', '.']) {
      const refused = await run(`return await api.getFile({ name: ${JSON.stringify(dots)} });`);
      expect(refused.success, dots).toBe(false);
    }
    expect(home.seen.every((request) => request.url.startsWith('/api/files/') || !request.url.includes('files'))).toBe(true);
  });

  it('refuses a header parameter carrying a line break (no header injection), and the API key never reaches the program', async () => {
    const injected = await run("return await api.echoHeader({ 'x-note': 'a\\r\\nx-injected: 1' });");
    expect(injected.success).toBe(false);
    expect(home.seen.some((request) => request.headers['x-injected'] !== undefined)).toBe(false);
    const fine = await run("return await api.echoHeader({ 'x-note': 'plain' });");
    expect(fine.success).toBe(true);
    expect(home.seen.at(-1)?.headers['x-api-key']).toBe(API_KEY);
    expect(JSON.stringify(fine)).not.toContain(API_KEY);
  });

  // O1 (medium; fixed in 4fc3b27 by the OpenAPI owner: the home is baseUrl, else the document's server): an
  // operation (or path item) whose own `servers` entry names another origin is called there *with the
  // configured headers*, since the backend treats the request's own origin as "home". A spec from a URL
  // or a third party thus chooses where the API key goes. Fix: home is the config's baseUrl or the
  // document-level server; an operation server on another origin gets no configured headers.
  it('O1: an operation whose own server is another origin does not receive the configured API key', async () => {
    const result = await run('return await api.elsewhere();');
    expect(result.success).toBe(true);
    expect(other.seen.at(-1)?.headers['x-api-key']).toBeUndefined();
  });

  // O2 (low; fixed in 4fc3b27 by the OpenAPI owner: such a parameter is the argument `__proto___path`): a parameter named
  // `__proto__` is assigned with `properties[property] = …`, which replaces the prototype of the
  // `properties` object instead of adding the property: the built schema lists no such property but
  // still requires it, and since `__proto__` keys are dropped from every call's arguments the function
  // can never be called.
  it('O2: an operation with a path parameter named __proto__ is callable', async () => {
    const [spec] = await space.capabilities();
    const fn = spec?.functions.find((candidate) => candidate.name === 'protoParam');
    const properties = fn?.inputSchema.properties as Record<string, unknown>;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    const required = (fn?.inputSchema.required ?? []) as string[];
    for (const name of required) expect(Object.keys(properties)).toContain(name);
    const called = await run("return await api.protoParam({ __proto___path: 'x' } as never);");
    expect(called).toMatchObject({ success: true, result: { url: '/api/proto/x' } });
  });

  it('a redirect to another host is not followed (no request, no API key there), and a 2 MB answer is refused while it streams', async () => {
    const before = other.seen.length;
    const away = await run('return await api.away();');
    expect(away).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
    expect(other.seen.slice(before).filter((request) => request.url === '/stolen')).toEqual([]);
    const huge = await run('return await api.huge();');
    expect(huge).toMatchObject({ success: false, error: { code: 'RESULT_TOO_LARGE' } });
    expect(JSON.stringify([away, huge])).not.toContain(API_KEY);
  });

  it('an operation named constructor, with a parameter named constructor, is an ordinary function', async () => {
    const result = await run("return await api.constructor({ constructor: 'x' });");
    expect(result).toMatchObject({ success: true, result: { url: '/api/ctor?constructor=x' } });
  });
});

describe('attack pass 3: hostile spec documents (build time)', () => {
  let root: string;
  let web: RecordingServer;

  beforeAll(async () => {
    root = await makeTempDir('attack3-specs');
    web = await startRecordingServer();
  });
  afterAll(async () => {
    await web?.close();
  });

  const base = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ openapi: '3.0.3', info: { title: 'h', version: '1' }, servers: [{ url: 'http://127.0.0.1:9/api' }], paths, ...extra });

  async function discover(name: string, text: string): Promise<Awaited<ReturnType<typeof discoverApi>>> {
    const file = path.join(root, name);
    await writeFile(file, text);
    return discoverApi('h', { spec: file } as never);
  }

  it('does not follow a $ref to file:///etc/passwd or to an http URL (nothing is read or fetched)', async () => {
    const response = (schema: unknown) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
    const spec = base({
      '/a': { get: { operationId: 'a', responses: response({ $ref: 'file:///etc/passwd' }) } },
      '/b': { get: { operationId: 'b', responses: response({ $ref: `${web.origin}/remote.json#/x` }) } },
    });
    const outcome = await discover('external.json', JSON.stringify(spec)).then(
      (value) => JSON.stringify(value),
      (error: unknown) => String(error),
    );
    expect(outcome).not.toMatch(/root:x:0:0/);
    expect(web.seen).toEqual([]);
  });

  it('refuses a YAML alias bomb (billion laughs) quickly with a message, not by running out of memory', async () => {
    const lines = ['openapi: 3.0.3', 'info: { title: h, version: "1" }', 'paths: {}', 'x-lol0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let level = 1; level <= 9; level++) lines.push(`x-lol${level}: &a${level} [${Array.from({ length: 10 }, () => `*a${level - 1}`).join(', ')}]`);
    await expect(discover('bomb.yaml', lines.join('\n'))).rejects.toThrow(/alias|neither valid JSON nor YAML/i);
  });

  it('builds a recursive schema (a tree of itself) as a finite named type', async () => {
    const spec = base(
      { '/tree': { get: { operationId: 'tree', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } } } } },
      { components: { schemas: { Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } } } } },
    );
    const { capability } = await discover('tree.json', JSON.stringify(spec));
    expect(JSON.stringify(capability.functions[0]?.outputSchema)).toContain('#/$defs/Node');
  });

  // O3 (high; fixed in 4fc3b27 by the OpenAPI owner: every $ref target is one shared $defs entry): a schema reached twice
  // through unnamed schemas (a $ref into `components/schemas/X/properties/…`, not to a component of its
  // own) is inlined at every use, so n levels of "l and r both refer to the level below" expand to 2^n
  // copies: a 3 KB spec at depth 18 builds a 15 MB output schema in ~19 s; depth 30 exhausts the build's
  // memory (the CLI, `serve`, the studio). MAX_DEPTH bounded the depth, not the size.
  it('O3: a spec of a few KB cannot blow a function\'s schema up exponentially', async () => {
    const depth = 14;
    const properties: Record<string, unknown> = { A0: { type: 'string' } };
    const level = (k: number) => ({ $ref: `#/components/schemas/Holder/properties/A${k}` });
    for (let k = 1; k <= depth; k++) properties[`A${k}`] = { type: 'object', properties: { l: level(k - 1), r: level(k - 1) } };
    const spec = base(
      { '/x': { get: { operationId: 'boom', responses: { '200': { description: 'ok', content: { 'application/json': { schema: level(depth) } } } } } } },
      { components: { schemas: { Holder: { type: 'object', properties } } } },
    );
    const text = JSON.stringify(spec);
    const { capability } = await discover('exponential.json', text);
    const built = JSON.stringify(capability.functions[0]?.outputSchema ?? {});
    // Linear in the spec: a converted schema may be larger than its spec, but not 2^depth times.
    expect(built.length).toBeLessThan(text.length * 20);
  }, 120_000);
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'attacker', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};
const NEEDS_APPROVAL = (customer: string) => `import { crm } from '@capabilities/crm';\nexport default (await crm.createTicket({ customerId: '${customer}', subject: 'attack' })).customerId;`;
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
    parsed = text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as unknown);
  } else if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

const MODERN_HEADERS = (method: string, name?: string): Record<string, string> => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });

/** A 2026-07-28 `tools/call` of execute_code; the JSON-RPC result (or error). */
async function modernCall(url: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute_code', ...params, _meta: ENVELOPE } }, MODERN_HEADERS('tools/call', 'execute_code'));
  expect(answer.status).toBe(200);
  const message = (Array.isArray(answer.body) ? answer.body.at(-1) : answer.body) as { result?: Record<string, unknown>; error?: Record<string, unknown> };
  return message.result ?? { rpcError: message.error };
}

function textOf(result: Record<string, unknown>): string {
  return ((result.content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

/** A 2025-11-25 session opened by hand: its id. */
async function openLegacySession(url: string, capabilities: Record<string, unknown> = {}): Promise<string> {
  const init = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw-legacy', version: '1' } } });
  expect(init.status).toBe(200);
  const session = init.headers.get('mcp-session-id') ?? '';
  expect(session).not.toBe('');
  const ready = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
  expect(ready.status).toBe(202);
  return session;
}

describe('attack pass 3: serve over HTTP, both eras', () => {
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
    const swapped = await modernCall(url, { arguments: { code: NEEDS_APPROVAL('c-002') }, inputResponses: approve(victim.callId), requestState: attacker.state });
    expect(swapped.resultType).toBe('input_required');
    expect(Object.keys(swapped.inputRequests as object)).toEqual([attacker.callId]);
    // The victim's run still waits for its own client, who approves it with its own state.
    const done = await modernCall(url, { arguments: { code: NEEDS_APPROVAL('c-001') }, inputResponses: approve(victim.callId), requestState: victim.state });
    expect(done.structuredContent).toMatchObject({ success: true, result: 'c-001', calls: 1 });
    const attackerDone = await modernCall(url, { arguments: { code: 'export default 0' }, inputResponses: approve(attacker.callId), requestState: String(swapped.requestState) });
    // The retry's own `code` is ignored: the state names the run, which goes on with its program.
    expect(attackerDone.structuredContent).toMatchObject({ success: true, result: 'c-002' });
  });

  it('a requestState from a server with another key is refused, and a result handle is not a requestState (nor the reverse)', async () => {
    const parked = await parkedRun('c-003');
    const elsewhere = await modernCall(stranger.url ?? '', { arguments: { code: NEEDS_APPROVAL('c-003') }, inputResponses: approve(parked.callId), requestState: parked.state });
    expect(textOf(elsewhere)).toMatch(/not sealed by this server/);

    const big = await modernCall(url, { arguments: { code: BIG_RESULT } });
    const pageUri = String((big.structuredContent as { resultPages: { uri: string } }).resultPages.uri);
    const handle = /^agent-spaces:\/\/results\/([^/]+)\/1$/.exec(pageUri)?.[1] ?? '';
    const asState = await modernCall(url, { arguments: { code: NEEDS_APPROVAL('c-003') }, inputResponses: approve(parked.callId), requestState: handle });
    expect(textOf(asState)).toMatch(/not sealed by this server/);
    const asHandle = await post(url, { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: `agent-spaces://results/${parked.state}/1`, _meta: ENVELOPE } }, MODERN_HEADERS('resources/read', `agent-spaces://results/${parked.state}/1`));
    expect(JSON.stringify(asHandle.body)).toMatch(/not a result handle of this server/);
    // The run is untouched by all this and finishes with its own state.
    const done = await modernCall(url, { arguments: { code: NEEDS_APPROVAL('c-003') }, inputResponses: approve(parked.callId), requestState: parked.state });
    expect(done.structuredContent).toMatchObject({ success: true, result: 'c-003' });
  });

  it('a session cannot read a result stored for clients without a session, and a stateless caller cannot read a session\'s result', async () => {
    const big = await modernCall(url, { arguments: { code: BIG_RESULT } });
    const statelessUri = String((big.structuredContent as { resultPages: { uri: string } }).resultPages.uri);
    const session = await openLegacySession(url);
    const fromSession = await post(url, { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: statelessUri } }, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(JSON.stringify(fromSession.body)).toMatch(/belongs to another session/);

    const sessionRun = await post(url, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'execute_code', arguments: { code: BIG_RESULT } } }, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    const sessionUri = /agent-spaces:\/\/results\/[^/"]+\/1/.exec(JSON.stringify(sessionRun.body))?.[0] ?? '';
    expect(sessionUri).not.toBe('');
    const fromStateless = await post(url, { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: sessionUri, _meta: ENVELOPE } }, MODERN_HEADERS('resources/read', sessionUri));
    expect(JSON.stringify(fromStateless.body)).toMatch(/belongs to another session/);
    expect(JSON.stringify(fromStateless.body)).not.toContain('line 0 x');
  });

  it('refuses a 2026-07-28 request whose Mcp-Method / Mcp-Name headers do not match its body', async () => {
    const body = { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'execute_code', arguments: { code: 'export default 1' }, _meta: ENVELOPE } };
    const wrongMethod = await post(url, body, MODERN_HEADERS('tools/list'));
    expect(wrongMethod.status).toBe(400);
    const wrongName = await post(url, body, MODERN_HEADERS('tools/call', 'search_tools'));
    expect(wrongName.status).toBe(400);
    const wrongVersion = await post(url, body, { ...MODERN_HEADERS('tools/call', 'execute_code'), 'mcp-protocol-version': '2025-11-25' });
    expect(wrongVersion.status).toBeGreaterThanOrEqual(400);
  });

  it('refuses a batch of 2026-07-28 requests, and a 2026-07-28 request carrying an unknown session id', async () => {
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'execute_code', arguments: { code: 'export default 1' }, _meta: ENVELOPE } });
    const batch = await post(url, [call(1), call(2)], MODERN_HEADERS('tools/call', 'execute_code'));
    expect(batch.status).toBe(400);
    const unknown = await post(url, call(3), { ...MODERN_HEADERS('tools/call', 'execute_code'), 'mcp-session-id': '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(404);
  });

  // M3 (medium; fixed in server/create-mcp-server.ts createRunRouter and server/serve.ts): a run
  // waiting for approval keeps its sandbox slot (serve gives each program a worker process of its own,
  // two by default), and a 2026-07-28 run waits for its client's retry for 10 minutes. Two execute_code
  // calls that need approval, never answered, stalled every other caller's program for those 10 minutes
  // (and again, each time they were sent). At most slots - 1 runs may now wait for approval at once; a
  // call of another run that needs approval meanwhile is denied, saying why.
  it('M3: runs left waiting for approval cannot take every sandbox slot: other callers\' programs still run', async () => {
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
    const done = await modernCall(strangerUrl, { arguments: { code: NEEDS_APPROVAL('c-001') }, inputResponses: approve(callId), requestState: first.requestState });
    expect(done.structuredContent).toMatchObject({ success: true, result: 'c-001' });
  });

  // M1 (medium; fixed in server/serve-mcp.ts): a 2025-11-25 session's cap on requests open at once
  // (maxRequestsPerSession) counted HTTP requests, and the session transport accepts JSON-RPC batches
  // of up to 100 messages: one POST of 100 execute_code calls started 100 runs against a cap of 16.
  // Each request of a batch now counts against the cap; a batch that does not fit is refused (429).
  it('M1: a JSON-RPC batch in a 2025-11-25 session counts each of its requests against maxRequestsPerSession', async () => {
    const session = await openLegacySession(url);
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'execute_code', arguments: { code: `export default ${id}` } } });
    const tooMany = await post(url, [call(1), call(2), call(3)], { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(tooMany.status).toBe(429);
    // A batch that fits still works (older clients batch), and the session is not left counting it.
    const fits = await post(url, [call(4), call(5)], { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(fits.status).toBe(200);
    expect(JSON.stringify(fits.body)).toMatch(/Result: 4[\s\S]*|"result":4/);
    const again = await post(url, [call(6), call(7)], { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(again.status).toBe(200);
  });

  // M2 (high; fixed in server/run-result-to-tool.ts): execute_code's text showed the result as
  // JSON.stringify(result, null, 2). Indentation grows with depth, so a small result nested deep around
  // a wide array becomes enormous on the host: 504 KB nested 2,000 deep took 15 s of the server's event
  // loop (every caller waits) and 1.1 GB before "Invalid string length"; two at once could end the
  // process. The indented size is now bounded before it is made; past the bound the text is compact.
  it('M2: a small result nested deep around a wide array is not indented into hundreds of megabytes on the host', async () => {
    const code = 'let nested: unknown = new Array(60_000).fill(0);\nfor (let level = 0; level < 1_000; level++) nested = [nested];\nexport default nested;';
    const answer = await modernCall(url, { arguments: { code } });
    expect(answer.structuredContent).toMatchObject({ success: true, truncated: true });
    // Compact, it is about 122,000 characters: two pages. Indented, it was 120 million (cut to 8 Mi: 128 pages).
    expect((answer.structuredContent as { resultPages: { pages: number } }).resultPages.pages).toBeLessThanOrEqual(3);
  });

  it("a 2026-07-28 request carrying a live session's id is refused by the session; dressed as 2025 it stays in the session's scope", async () => {
    const session = await openLegacySession(url);
    const call = { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'execute_code', arguments: { code: BIG_RESULT }, _meta: ENVELOPE } };
    const modern = await post(url, call, { ...MODERN_HEADERS('tools/call', 'execute_code'), 'mcp-session-id': session });
    expect(modern.status).toBe(400);
    expect(JSON.stringify(modern.body)).toMatch(/Unsupported protocol version: 2026-07-28/);
    // The same body under the session's version: served by the session, its pages the session's.
    const dressed = await post(url, call, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(dressed.status).toBe(200);
    const uri = /agent-spaces:\/\/results\/[^/"]+\/1/.exec(JSON.stringify(dressed.body))?.[0] ?? '';
    expect(uri).not.toBe('');
    const stolen = await post(url, { jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri, _meta: ENVELOPE } }, MODERN_HEADERS('resources/read', uri));
    expect(JSON.stringify(stolen.body)).toMatch(/belongs to another session/);
    expect(JSON.stringify(stolen.body)).not.toContain('line 0 x');
  });
});

describe('attack pass 3: inferred result types from a hostile MCP server', () => {
  const MODULE = 'mcp-hostile';
  const fnOf = (toolName: string): FunctionSpec => ({ name: toolName, toolName, inputSchema: { type: 'object', properties: {} }, resultKind: 'mcp-text', annotations: { readOnlyHint: true } });
  const specOf = (toolName: string): CapabilitySpec => ({ module: MODULE, namespace: 'hostile', source: { kind: 'mcp', server: 'hostile' }, config: {}, functions: [fnOf(toolName)] });
  const configOf = (outDir: string) => ({ outDir, mcpServers: { hostile: { command: 'node' } } }) as unknown as ResolvedConfig;

  it('property names that would break TypeScript (comment ends, quotes, line breaks, __proto__) give valid, inert declarations', async () => {
    const outDir = await makeTempDir('attack3-inferred-names');
    const hostileKeys = ['*/', '/*', '"', "'", '\\', 'a\nb', 'line\u2028sep', '`${x}`', '__proto__', 'constructor', ']', '*/ export declare const pwned: 1; /*', '}; export declare const pwned2: 1; {', ''];
    const value = Object.fromEntries(hostileKeys.map((key, index) => [key, index % 2 === 0 ? 'text' : { nested: [index] }]));
    const recorder = createResultRecorder({ outDir });
    recorder.record(MODULE, 'listThings', value, 'run');
    recorder.record(MODULE, 'listThings', JSON.parse(`{"__proto__": {"polluted": true}, "*/": "again"}`), 'run');
    await recorder.flush();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    const [applied] = await applyInferredResults([specOf('listThings')], configOf(outDir));
    const schema = applied?.functions[0]?.inferredResult?.schema as { properties?: Record<string, unknown> } | undefined;
    expect(Object.keys(schema?.properties ?? {})).toEqual(expect.arrayContaining(['*/', '__proto__', 'a\nb']));
    const { dts } = emitDeclarations(applied as CapabilitySpec);
    const file = path.join(outDir, 'hostile.d.ts');
    await writeFile(file, dts);
    const consumer = path.join(outDir, 'consumer.ts');
    await writeFile(consumer, "import { listThings } from './hostile.js';\nconst result = await listThings();\nexport const a: string = result['*/'];\nexport const b: number[] | undefined = result['a\\nb']?.nested;\nexport const c: number[] | undefined = result[\"'\"]?.nested;\nexport const d: string | undefined = result['line\\u2028sep'];\n");
    expect(typeCheckFiles([file, consumer])).toEqual([]);
    // Inert: the module declares what it always declares, nothing a property name smuggled in.
    const source = ts.createSourceFile(file, dts, ts.ScriptTarget.ES2022, true);
    const declared = source.statements.flatMap((statement) =>
      ts.isVariableStatement(statement) ? statement.declarationList.declarations.map((declaration) => declaration.name.getText(source)) : ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) ? [statement.name.text] : [],
    );
    expect(declared.filter((name) => /pwned/.test(name))).toEqual([]);
    expect(declared).toContain('listThings');
  });

  it('ever-changing, deeply nested, very wide results keep the store and the declarations bounded', async () => {
    const outDir = await makeTempDir('attack3-inferred-shapes');
    const recorder = createResultRecorder({ outDir });
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level++) deep = { [`k${level % 7}`]: deep };
    recorder.record(MODULE, 'shapeShifter', deep, 'run');
    for (let sample = 0; sample < 300; sample++) {
      const wide = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`key-${sample}-${index}-${'x'.repeat(100)}`, sample % 2 === 0 ? [{ [`inner${sample}`]: sample }] : { [`other${sample}`]: [sample] }]));
      recorder.record(MODULE, 'shapeShifter', { wide, [`top${sample}`]: sample, list: Array.from({ length: 1_000 }, (_, index) => ({ [`field${(index * sample) % 97}`]: index })) }, 'run');
    }
    await recorder.flush();
    const stored = await readInferredResults(outDir, MODULE);
    const text = JSON.stringify(stored);
    expect(text.length).toBeLessThan(MAX_INFERRED_FILE_BYTES);
    const [applied] = await applyInferredResults([specOf('shapeShifter')], configOf(outDir));
    const { dts } = emitDeclarations(applied as CapabilitySpec);
    expect(dts.length).toBeLessThan(512 * 1024);
  }, 60_000);

  it('a store replaced by a symlink to a file elsewhere is not written through (the link is replaced, its target untouched)', async () => {
    const outDir = await makeTempDir('attack3-inferred-link');
    const target = path.join(outDir, 'precious.txt');
    await writeFile(target, 'do not touch');
    await mkdir(path.join(outDir, 'inferred'), { recursive: true });
    await symlink(target, path.join(outDir, `inferred/${MODULE}.json`));
    const recorder = createResultRecorder({ outDir });
    recorder.record(MODULE, 'listThings', { a: 1 }, 'run');
    await recorder.flush();
    expect(await readFile(target, 'utf8')).toBe('do not touch');
    expect((await lstat(path.join(outDir, `inferred/${MODULE}.json`))).isSymbolicLink()).toBe(false);
    expect(Object.keys(await readInferredResults(outDir, MODULE))).toEqual(['listThings']);
  });

  it('a store over the size cap is ignored when read and started again when written', async () => {
    const outDir = await makeTempDir('attack3-inferred-huge');
    await mkdir(path.join(outDir, 'inferred'), { recursive: true });
    const huge = path.join(outDir, `inferred/${MODULE}.json`);
    await writeFile(huge, `{"listThings": ${' '.repeat(MAX_INFERRED_FILE_BYTES)}1}`);
    expect(await readInferredResults(outDir, MODULE)).toEqual({});
    const recorder = createResultRecorder({ outDir });
    recorder.record(MODULE, 'listThings', { a: 1 }, 'run');
    await recorder.flush();
    expect((await stat(huge)).size).toBeLessThan(4096);
  });

  // I1 (low-medium, fixed): the store was sized with stat (which follows a symlink) and read with
  // readFile. A store that is (or links to) a FIFO read until its writer closed: the build and the
  // recorder's writes waited forever; a link to /dev/zero read 2 GB. Both now read it with core's
  // readSmallFile: a regular file only (checked on the opened handle), at most the cap.
  it('I1: a store that is a FIFO (with a writer that never closes it) is ignored, not waited on forever', async () => {
    const outDir = await makeTempDir('attack3-inferred-fifo');
    await mkdir(path.join(outDir, 'inferred'), { recursive: true });
    const fifo = path.join(outDir, 'inferred', `${MODULE}.json`);
    execFileSync('mkfifo', [fifo]);
    // Read-write on Linux opens a FIFO without waiting: the test holds the writing end open.
    const writer = await open(fifo, constants.O_RDWR);
    heldFifos.push(writer);
    await writer.write('{"listThings": ');
    expect(await readInferredResults(outDir, MODULE)).toEqual({});
    // The recorder starts such a store again instead of reading it.
    const recorder = createResultRecorder({ outDir });
    recorder.record(MODULE, 'listThings', { a: 1 }, 'run');
    await recorder.flush();
    expect(Object.keys(await readInferredResults(outDir, MODULE))).toEqual(['listThings']);
  }, 30_000);

  it('I1: a store linked to /dev/zero is ignored without reading it', async () => {
    const outDir = await makeTempDir('attack3-inferred-zero');
    await mkdir(path.join(outDir, 'inferred'), { recursive: true });
    await symlink('/dev/zero', path.join(outDir, 'inferred', `${MODULE}.json`));
    expect(await readInferredResults(outDir, MODULE)).toEqual({});
  });
  const heldFifos: FileHandle[] = [];
  afterAll(async () => {
    // Closing the writing end ends a read that waited on it (the thread it held is freed).
    for (const handle of heldFifos) await handle.close();
  });
});

describe('attack pass 3: durable runs against a real PostgreSQL', () => {
  let cluster: PostgresCluster;
  const pools: Pool[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 180_000);
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await cluster?.stop();
  });

  async function freshStore(name: string): Promise<Pool> {
    const url = await cluster.createDatabase(name);
    const pool = createPool(url, 4);
    pools.push(pool);
    await ensureStoreSchema(url, pool);
    return pool;
  }

  const approvalOf = (runId: string, callKey: string) => ({ runId, callKey, capability: 'bank', function: 'pay', params: { to: 'mallory' }, message: 'Pay?' });

  it('the approvals CLI cannot decide an approval that does not exist, nor one already decided (the decision stands), nor both of two racing decisions', async () => {
    const pool = await freshStore('attack3_decide');
    await expect(decideStoredApproval(pool, 'ffffffffff', { approved: true })).rejects.toMatchObject({ code: 'APPROVAL_NOT_FOUND' });
    await expect(decideStoredApproval(pool, '', { approved: true })).rejects.toMatchObject({ code: 'APPROVAL_NOT_FOUND' });
    const first = await requestStoredApproval(pool, approvalOf('run-1', 'bank.pay#1'));
    await decideStoredApproval(pool, first.id, { approved: false, reason: 'no' });
    await expect(decideStoredApproval(pool, first.id, { approved: true })).rejects.toMatchObject({ code: 'APPROVAL_DECIDED' });
    expect(await getStoredApproval(pool, first.id)).toMatchObject({ status: 'denied', reason: 'no' });
    // A replayed run asking again gets the same row, still denied.
    expect(await requestStoredApproval(pool, approvalOf('run-1', 'bank.pay#1'))).toMatchObject({ id: first.id, status: 'denied' });

    const second = await requestStoredApproval(pool, approvalOf('run-2', 'bank.pay#1'));
    const outcomes = await Promise.allSettled([decideStoredApproval(pool, second.id, { approved: true }), decideStoredApproval(pool, second.id, { approved: false })]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const decided = await getStoredApproval(pool, second.id);
    const winner = outcomes.find((outcome): outcome is PromiseFulfilledResult<StoredApproval> => outcome.status === 'fulfilled');
    expect(decided?.status).toBe(winner?.value.status);
  });

  // D1 (low; fixed by the durable owner: ids must be hex, checked before any query): the LIKE wildcards are stripped
  // from the prefix, but the emptiness check looks at the prefix before stripping, so `approvals approve
  // %` (or `_`, `\`) is the empty prefix: it matches every approval and decides the only pending one
  // without naming it. Fix: test the stripped prefix (or refuse ids that are not hex).
  it('D1: "approvals approve %" does not decide an approval it does not name', async () => {
    const pool = await freshStore('attack3_wildcard');
    const only = await requestStoredApproval(pool, approvalOf('run-3', 'bank.pay#1'));
    await expect(decideStoredApproval(pool, '%', { approved: true })).rejects.toMatchObject({ code: 'APPROVAL_NOT_FOUND' });
    expect(await getStoredApproval(pool, only.id)).toMatchObject({ status: 'pending' });
  });

  it('a replay cannot get a finished call performed twice: reordered arguments are the same call, a call overtaking the journal diverges, an unfinished one is not repeated', async () => {
    const pool = await freshStore('attack3_journal');
    const performed: string[] = [];
    const callOf = (fn: string, args: Record<string, unknown>): BackendCall =>
      ({ capability: { module: 'bank' }, function: { name: fn }, args, context: { signal: new AbortController().signal } }) as unknown as BackendCall;
    const perform = (label: string) => async () => {
      performed.push(label);
      return { ok: label };
    };
    const attempt = async (runId: string) => {
      const fatal: DurableError[] = [];
      const journal = await openRunJournal(pool, { runId, executorId: 'attacker', isIdempotent: () => false, onFatal: (error) => fatal.push(error) });
      return { journal, fatal };
    };
    // First attempt: two payments, then the worker "dies" with a third in flight (started, never finished).
    const one = await attempt('run-pay');
    await one.journal.perform(callOf('pay', { to: 'bob', amount: 5 }), perform('pay bob'));
    await one.journal.perform(callOf('pay', { to: 'carol', amount: 7 }), perform('pay carol'));
    const inFlight = one.journal.perform(callOf('pay', { to: 'dave', amount: 9 }), () => new Promise(() => undefined));
    void inFlight;
    await expect.poll(async () => (await pool.query(`SELECT count(*)::int AS n FROM agent_spaces.call_journal WHERE run_id = 'run-pay' AND status = 'started'`)).rows[0]?.n).toBe(1);
    expect(performed).toEqual(['pay bob', 'pay carol']);

    // A replay that builds the same arguments in another key order is served from the journal.
    const two = await attempt('run-pay');
    expect(await two.journal.perform(callOf('pay', { amount: 5, to: 'bob' }), perform('pay bob again'))).toEqual({ ok: 'pay bob' });
    // A replay that tries to slip a new call in before the journaled ones diverges, and nothing is performed.
    await expect(two.journal.perform(callOf('pay', { to: 'mallory', amount: 1_000 }), perform('pay mallory'))).rejects.toThrow(/diverged/);
    expect(two.fatal.map((error) => error.code)).toEqual(['REPLAY_DIVERGED']);
    await expect(two.journal.perform(callOf('pay', { to: 'carol', amount: 7 }), perform('pay carol again'))).rejects.toThrow();

    // An honest replay reaches the call that was in flight: not performed again (its outcome is unknown).
    const three = await attempt('run-pay');
    await three.journal.perform(callOf('pay', { to: 'bob', amount: 5 }), perform('x'));
    await three.journal.perform(callOf('pay', { to: 'carol', amount: 7 }), perform('x'));
    await expect(three.journal.perform(callOf('pay', { to: 'dave', amount: 9 }), perform('pay dave again'))).rejects.toThrow(/outcome of bank.pay .* is unknown/);
    expect(three.fatal.map((error) => error.code)).toEqual(['OUTCOME_UNKNOWN']);
    expect(performed).toEqual(['pay bob', 'pay carol']);
  });

  // D2 (medium; fixed by the durable owner: the bridge hands a journal failures already redacted): the journal wraps the backend's call
  // *inside* the bridge's redaction (create-bridge.ts: options.journal(call, () => backend.call(call)),
  // the error redacted only afterwards), and run-journal.ts writes error.message / details as they
  // came. A TypeScript tool whose error quotes a secret of the space (here the value of an OpenAPI
  // service's header, which is in serverSecrets) reaches the program redacted but is stored verbatim in
  // agent_spaces.call_journal — and replayed from there. DEPLOY.md says secrets are cut out before
  // anything is written. Fix: redact the outcome before writing it (the worker has the redactor), or
  // move the journal outside the bridge's redaction.
  it('D2: a tool error quoting a secret of the space is journaled redacted, as the program saw it', async () => {
    const pool = await freshStore('attack3_secrets');
    const dir = await makeTempDir('attack3-durable-secret');
    await writeFile(path.join(dir, 'leaky.ts'), [
      "import { z } from 'zod';",
      "import { defineFunction, defineTool } from 'agent-spaces';",
      "export const leaky = defineTool({ name: 'leaky', description: 'fails quoting a key', version: '1.0.0', functions: {",
      "  fail: defineFunction({ description: 'fails', parameters: z.object({}), returns: z.null(), handler: () => { throw new Error(`upstream refused key ${process.env.ATTACK3_DURABLE_KEY}`); } }),",
      '} });',
    ].join('\n'));
    await writeFile(path.join(dir, 'spec.json'), JSON.stringify({ openapi: '3.0.3', info: { title: 's', version: '1' }, servers: [{ url: 'http://127.0.0.1:9' }], paths: {} }));
    const secret = 'sk-durable-secret-4e1f8a2b';
    process.env.ATTACK3_DURABLE_KEY = secret;
    const config = resolveConfig({ capabilities: ['leaky.ts'], openapi: { vault: { spec: 'spec.json', headers: { authorization: `Bearer \${ATTACK3_DURABLE_KEY}` } } } }, { root: dir, env: process.env });
    const journal = await openRunJournal(pool, { runId: 'run-secret', executorId: 'attacker', isIdempotent: () => true, onFatal: () => undefined });
    const space = await createSpace({ config, sources: (defaults) => [...defaults, openapiSource], isolation: 'in-process', journal: (call, perform) => journal.perform(call, perform) });
    try {
      expect((await space.build()).errors).toEqual([]);
      const result = await space.run("import { leaky } from '@capabilities/leaky';\ntry { await leaky.fail({}); } catch (error) { return String((error as Error).message); }\nreturn 'no error';", { check: false, runId: 'run-secret' });
      expect(result.success).toBe(true);
      expect(String(result.result)).toMatch(/upstream refused key/);
      expect(String(result.result)).not.toContain(secret);
      const { rows } = await pool.query<{ outcome: string }>(`SELECT outcome FROM agent_spaces.call_journal WHERE run_id = 'run-secret'`);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.outcome).not.toContain(secret);
    } finally {
      await space.close();
      delete process.env.ATTACK3_DURABLE_KEY;
    }
  });
});

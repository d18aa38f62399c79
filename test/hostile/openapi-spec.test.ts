/**
 * The OpenAPI source takes specs from files, URLs and third parties, and arguments from programs. A
 * hostile spec reads no file and fetches no URL at build time, cannot blow a schema up or exhaust
 * memory, and cannot choose where the configured API key goes; hostile arguments stay inside their path
 * segment or header; redirects to other hosts are not followed and large answers are refused while
 * they stream.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { discoverApi, openapiSource } from '../../sources/openapi/index.js';
import { makeTempDir } from '../support/temp-dir.js';

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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const API_KEY = 'sk-attack3-openapi-9c1d7e';

describe('a hostile OpenAPI spec and hostile arguments', () => {
  let home: RecordingServer;
  let other: RecordingServer;
  let space: Space;
  let root: string;

  const ok = (description = 'ok') => ({
    '200': { description, content: { 'application/json': { schema: { type: 'object', properties: { url: { type: 'string' } } } } } },
  });

  beforeAll(async () => {
    other = await startRecordingServer();
    // /api/away redirects to another origin (not in redirectHosts); /api/huge answers 2 MB.
    home = await startRecordingServer((request): CannedAnswer | undefined => {
      if (request.url?.startsWith('/api/away')) return { status: 302, headers: { location: `${other.origin}/stolen` } };
      if (request.url?.startsWith('/api/huge'))
        return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'x'.repeat(2 * 1024 * 1024) }) };
      return undefined;
    });
    root = await makeTempDir('attack3-openapi');
    const spec = {
      openapi: '3.0.3',
      info: { title: 'hostile', version: '1' },
      // No baseUrl in the config: the spec's servers decide where calls (and the configured headers) go.
      servers: [{ url: `${home.origin}/api` }],
      paths: {
        '/files/{name}': {
          get: {
            operationId: 'getFile',
            parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
            responses: ok(),
          },
        },
        '/echo': {
          get: { operationId: 'echoHeader', parameters: [{ name: 'x-note', in: 'header', schema: { type: 'string' } }], responses: ok() },
        },
        // An operation whose own server is another origin than the document's.
        '/elsewhere': { get: { operationId: 'elsewhere', servers: [{ url: `${other.origin}/api` }], responses: ok() } },
        '/proto/{__proto__}': {
          get: {
            operationId: 'protoParam',
            parameters: [{ name: '__proto__', in: 'path', required: true, schema: { type: 'string' } }],
            responses: ok(),
          },
        },
        '/away': { get: { operationId: 'away', responses: ok() } },
        '/huge': { get: { operationId: 'huge', responses: ok() } },
        '/ctor': {
          get: {
            operationId: 'constructor',
            parameters: [{ name: 'constructor', in: 'query', schema: { type: 'string' } }],
            responses: ok(),
          },
        },
      },
    };
    await writeFile(path.join(root, 'hostile.json'), JSON.stringify(spec));
    const config = resolveConfig(
      { capabilities: [], openapi: { hostile: { spec: 'hostile.json', headers: { 'x-api-key': '${HOSTILE_KEY}' } } } },
      { root, env: { HOSTILE_KEY: API_KEY } },
    );
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
    const result = await run(
      `const out = []; for (const name of ${JSON.stringify(tries)}) out.push((await api.getFile({ name })).url); return out;`,
    );
    expect(result.error).toBeUndefined();
    const urls = result.result as string[];
    expect(urls).toEqual([
      '/api/files/..%2Fadmin',
      '/api/files/%252e%252e',
      '/api/files/..%252f..%252fetc',
      '/api/files/a%3Fadmin%3D1',
      '/api/files/a%23frag',
      '/api/files/a%2Fb',
    ]);
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

  // Configured headers (the API key) go only to the API's home: the config's baseUrl, else the document's
  // server. An operation or path item whose own `servers` entry names another origin — a spec from a URL
  // or a third party — must not choose where the key goes.
  it('an operation whose own server is another origin does not receive the configured API key', async () => {
    const result = await run('return await api.elsewhere();');
    expect(result.success).toBe(true);
    expect(other.seen.at(-1)?.headers['x-api-key']).toBeUndefined();
  });

  // A parameter named `__proto__` must become an ordinary argument (`__proto___path`): assigned as a
  // property of the schema's `properties` object it would replace its prototype instead, and the built
  // function would require a property no call can carry.
  it('an operation with a path parameter named __proto__ is callable', async () => {
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

describe('hostile spec documents (build time)', () => {
  let root: string;
  let web: RecordingServer;

  beforeAll(async () => {
    root = await makeTempDir('attack3-specs');
    web = await startRecordingServer();
  });
  afterAll(async () => {
    await web?.close();
  });

  const base = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    openapi: '3.0.3',
    info: { title: 'h', version: '1' },
    servers: [{ url: 'http://127.0.0.1:9/api' }],
    paths,
    ...extra,
  });

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
    const lines = [
      'openapi: 3.0.3',
      'info: { title: h, version: "1" }',
      'paths: {}',
      'x-lol0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ];
    for (let level = 1; level <= 9; level++)
      lines.push(`x-lol${level}: &a${level} [${Array.from({ length: 10 }, () => `*a${level - 1}`).join(', ')}]`);
    await expect(discover('bomb.yaml', lines.join('\n'))).rejects.toThrow(/alias|neither valid JSON nor YAML/i);
  });

  it('builds a recursive schema (a tree of itself) as a finite named type', async () => {
    const spec = base(
      {
        '/tree': {
          get: {
            operationId: 'tree',
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } },
          },
        },
      },
      {
        components: {
          schemas: { Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } } },
        },
      },
    );
    const { capability } = await discover('tree.json', JSON.stringify(spec));
    expect(JSON.stringify(capability.functions[0]?.outputSchema)).toContain('#/$defs/Node');
  });

  // A schema reached twice through unnamed schemas (a $ref into `components/schemas/X/properties/…`) is
  // one shared $defs entry, not inlined at every use: n levels of "l and r both refer to the level below"
  // would expand to 2^n copies (a 3 KB spec at depth 30 exhausts the memory of the CLI, `serve`, the studio).
  it("a spec of a few KB cannot blow a function's schema up exponentially", async () => {
    const depth = 14;
    const properties: Record<string, unknown> = { A0: { type: 'string' } };
    const level = (k: number) => ({ $ref: `#/components/schemas/Holder/properties/A${k}` });
    for (let k = 1; k <= depth; k++) properties[`A${k}`] = { type: 'object', properties: { l: level(k - 1), r: level(k - 1) } };
    const spec = base(
      {
        '/x': {
          get: {
            operationId: 'boom',
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: level(depth) } } } },
          },
        },
      },
      { components: { schemas: { Holder: { type: 'object', properties } } } },
    );
    const text = JSON.stringify(spec);
    const { capability } = await discover('exponential.json', text);
    const built = JSON.stringify(capability.functions[0]?.outputSchema ?? {});
    // Linear in the spec: a converted schema may be larger than its spec, but not 2^depth times.
    expect(built.length).toBeLessThan(text.length * 20);
  }, 120_000);
});

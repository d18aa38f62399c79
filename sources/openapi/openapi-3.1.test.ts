// An OpenAPI 3.1 spec (type arrays with null, const, a recursive schema, server variables, operations
// without operationId, name collisions, a text result) against a real HTTP server implementing it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { openapiSource } from './index.js';
import { startPetstoreServer, type PetstoreServer } from './test-support/petstore-server.js';

const FIXTURES = path.join(import.meta.dirname, '__fixtures__');

interface Note {
  id: string;
  kind: 'note';
  title: string;
  body: string | null;
  tags: string[];
}

/** The Notes service of notes-3.1.yaml, in memory, recording each request's method, URL and headers. */
async function startNotesServer(): Promise<{
  origin: string;
  seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[];
  close: () => Promise<void>;
}> {
  const notes = new Map<string, Note>([['n1', { id: 'n1', kind: 'note', title: 'First', body: null, tags: ['a', 'b'] }]]);
  const seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      const url = new URL(request.url ?? '/', 'http://localhost');
      const send = (status: number, value: unknown, type = 'application/json'): void => {
        response.writeHead(status, { 'content-type': type }).end(type === 'application/json' ? JSON.stringify(value) : String(value));
      };
      const [, version, collection, id, rest] = url.pathname.split('/');
      if (version !== 'v2') return send(404, { message: 'not found' });
      if (collection === 'notes' && id === undefined && request.method === 'GET') {
        const tags = url.searchParams.get('tag')?.split(',') ?? [];
        const list = [...notes.values()].filter((note) => tags.every((tag) => note.tags.includes(tag)));
        return send(200, list.slice(0, Number(url.searchParams.get('limit') ?? 100)));
      }
      if (collection === 'notes' && id === undefined && request.method === 'POST') {
        const input = JSON.parse(body) as Partial<Note>;
        const note: Note = {
          id: `n${notes.size + 1}`,
          kind: 'note',
          title: input.title ?? '',
          body: input.body ?? null,
          tags: input.tags ?? [],
        };
        notes.set(note.id, note);
        return send(201, note);
      }
      const note = notes.get(decodeURIComponent(id ?? ''));
      if (collection === 'notes' && note === undefined) return send(404, { message: `no note ${id}` });
      if (collection === 'notes' && note && rest === 'text')
        return send(200, `${note.title}\n\n${note.body ?? ''}`, 'text/plain; charset=utf-8');
      if (collection === 'notes' && note && request.method === 'GET') return send(200, note);
      if (collection === 'notes' && note && request.method === 'PATCH') {
        Object.assign(note, JSON.parse(body) as Partial<Note>);
        return send(200, note);
      }
      if (collection === 'folders') {
        return send(200, {
          name: id,
          notes: [...notes.values()],
          children: [{ name: 'inner', children: [{ name: 'deepest', children: [] }] }],
        });
      }
      return send(404, { message: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('openapi source: a 3.1 YAML spec', () => {
  let notes: Awaited<ReturnType<typeof startNotesServer>>;
  let space: Space;
  let outDir: string;

  beforeAll(async () => {
    notes = await startNotesServer();
    const root = await makeTempDir('openapi-notes');
    const config = resolveConfig(
      {
        capabilities: [],
        openapi: { notes: { spec: path.join(FIXTURES, 'notes-3.1.yaml'), baseUrl: `${notes.origin}/v2`, requireApproval: false } },
      },
      { root },
    );
    outDir = config.outDir;
    space = await createSpace({ config, sources: [openapiSource], isolation: 'in-process' });
    const build = await space.build();
    expect(build.errors).toEqual([]);
    expect(build.warnings).toEqual([]);
  }, 60_000);

  afterAll(async () => {
    await space?.close();
    await notes?.close();
  });

  it('names operations without operationId by method and path, and renames a colliding parameter', async () => {
    const [spec] = await space.capabilities();
    expect(spec?.module).toBe('openapi-notes');
    expect(spec?.functions.map((fn) => `${fn.name} ← ${fn.toolName}`).sort()).toEqual([
      'createNote ← createNote',
      'folderTree ← folder_tree',
      'getNoteText ← getNoteText',
      'getNotesId ← GET /notes/{id}',
      'listNotes ← list-notes',
      'updateNote ← updateNote',
    ]);
    const read = spec?.functions.find((fn) => fn.name === 'getNotesId');
    expect(Object.keys(read?.inputSchema.properties as object)).toEqual(['id', 'id_query']);
  });

  it('declares 3.1 types: nullable type arrays, const, a recursive schema, a text result', async () => {
    const dts = await readFile(path.join(outDir, 'capabilities', 'openapi-notes', 'index.d.ts'), 'utf8');
    expect(dts).toMatch(/body: string \| null;/);
    expect(dts).toMatch(/kind: "note";/);
    expect(dts).toMatch(/export interface Folder \{[^}]*children: Folder\[\];/);
    expect(dts).toContain('export type GetNoteTextResult = string;');
    const diagnostics = await space.check(`
import { folderTree, getNoteText, listNotes } from '@capabilities/openapi-notes';
const tree = await folderTree({ folderId: 'root' });
const depth = (folder: typeof tree): number => 1 + Math.max(0, ...folder.children.map(depth));
const text: string = await getNoteText({ id: 'n1' });
const list = await listNotes({ tag: ['a'], limit: 5, 'X-Trace-Id': 't-1' });
const body: string | null = list[0]?.body ?? null;
export default { depth: depth(tree), text, body };
`);
    expect(diagnostics).toEqual([]);
  });

  it('performs the calls: comma-joined query arrays, header parameters, merge-patch bodies, 201 results, text', async () => {
    const result = await space.run(`
import { createNote, folderTree, getNoteText, getNotesId, listNotes, updateNote } from '@capabilities/openapi-notes';
const created = await createNote({ body: { title: 'Second', body: 'hello', tags: ['a'] } });
const patched = await updateNote({ id: created.id, body: { title: 'Second!' } });
const listed = await listNotes({ tag: ['a', 'b'], 'X-Trace-Id': 'trace-42' });
const one = await getNotesId({ id: 'n1', id_query: 3 });
const text = await getNoteText({ id: created.id });
const tree = await folderTree({ folderId: 'home' });
export default { created: created.id, patched: patched.title, listed: listed.map((n) => n.id), one: one.body, text, inner: tree.children[0]?.children[0]?.name };
`);
    expect(result.error).toBeUndefined();
    expect(result.result).toEqual({
      created: 'n2',
      patched: 'Second!',
      listed: ['n1'],
      one: null,
      text: 'Second!\n\nhello',
      inner: 'deepest',
    });
    const list = notes.seen.find((request) => request.url.startsWith('/v2/notes?'));
    expect(list?.url).toBe('/v2/notes?tag=a%2Cb');
    expect(list?.headers['x-trace-id']).toBe('trace-42');
    expect(notes.seen.find((request) => request.method === 'PATCH')?.headers['content-type']).toBe('application/merge-patch+json');
    expect(notes.seen.some((request) => request.url === '/v2/notes/n1?id=3')).toBe(true);
  });

  it('refuses arguments the spec does not declare, before any request', async () => {
    const before = notes.seen.length;
    const error = await space.callTool('openapi-notes.getNoteText', { id: 'n1', format: 'html' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect((error as Error).message).toContain('argument "format" is not allowed (no such property)');
    expect(notes.seen.length).toBe(before);
  });
});

describe('openapi source: a spec downloaded from a URL', () => {
  let server: PetstoreServer;
  beforeAll(async () => {
    const text = await readFile(path.join(FIXTURES, 'petstore.yaml'), 'utf8');
    server = await startPetstoreServer({ apiKey: 'k', specs: { '/api/v3/openapi.yaml': text } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('reads the spec over HTTP and calls its relative server against the spec URL', async () => {
    const root = await makeTempDir('openapi-url');
    const config = resolveConfig(
      { capabilities: [], openapi: { store: { spec: `${server.origin}/api/v3/openapi.yaml`, include: { tags: ['pet'] } } } },
      { root },
    );
    const space = await createSpace({ config, sources: [openapiSource], isolation: 'in-process' });
    try {
      const build = await space.build();
      expect(build.errors).toEqual([]);
      expect(await space.callTool('openapi-store.getPetById', { petId: 1 })).toMatchObject({ name: 'Rex' });
      expect(server.requests.at(-1)?.url).toBe('/api/v3/pet/1');
    } finally {
      await space.close();
    }
  });
});

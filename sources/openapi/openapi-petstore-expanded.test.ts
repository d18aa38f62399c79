// The OpenAPI Initiative's petstore-expanded example (OpenAPI 3.0) against a real HTTP server: results
// come from 2xx responses only (a 204 is `void`, `default` is an error), writes need approval unless the
// config says otherwise, a refused result after a write says the call was performed, and the summaries
// (catalog, search_tools) name the same types as index.d.ts (NewPet, Pet).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/index.js';
import type { ApprovalRequest } from '../../core/index.js';
import { createSpace, searchTools, type Space } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { openapiSource } from './index.js';

const SPEC = path.join(import.meta.dirname, '__fixtures__', 'petstore-expanded.yaml');

interface Pet {
  id: number;
  name: string;
  tag?: string;
}

/** petstore-expanded in memory: GET/POST /pets, GET/DELETE /pets/{id}; errors as the spec's Error. */
async function startServer(): Promise<{
  origin: string;
  pets: Map<number, Pet>;
  seen: string[];
  misbehave: { addPetWithoutId: boolean };
  close: () => Promise<void>;
}> {
  const pets = new Map<number, Pet>([[1, { id: 1, name: 'Rex', tag: 'dog' }]]);
  const seen: string[] = [];
  const misbehave = { addPetWithoutId: false };
  let next = 2;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      seen.push(`${request.method} ${url.pathname}`);
      const json = (status: number, value: unknown): void =>
        void response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const match = /^\/v2\/pets(?:\/(\d+))?$/.exec(url.pathname);
      if (match === null) return json(404, { code: 404, message: `no route ${url.pathname}` });
      const id = match[1] === undefined ? undefined : Number(match[1]);
      if (id === undefined && request.method === 'GET') {
        const tags = url.searchParams.getAll('tags');
        return json(
          200,
          [...pets.values()].filter((pet) => tags.length === 0 || (pet.tag !== undefined && tags.includes(pet.tag))),
        );
      }
      if (id === undefined && request.method === 'POST') {
        const input = JSON.parse(body) as { name: string; tag?: string };
        const pet: Pet = { id: next++, ...input };
        pets.set(pet.id, pet);
        return json(200, misbehave.addPetWithoutId ? { name: pet.name } : pet);
      }
      const pet = id === undefined ? undefined : pets.get(id);
      if (pet === undefined) return json(404, { code: 404, message: `no pet ${id}` });
      if (request.method === 'GET') return json(200, pet);
      if (request.method === 'DELETE') {
        pets.delete(pet.id);
        return void response.writeHead(204).end();
      }
      return json(405, { code: 405, message: 'method not allowed' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    pets,
    seen,
    misbehave,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('openapi source: petstore-expanded against a real server', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let space: Space;
  let outDir: string;
  const approvals: ApprovalRequest[] = [];

  beforeAll(async () => {
    server = await startServer();
    const root = await makeTempDir('openapi-petstore-expanded');
    // No requireApproval in the config: the default is that writes need it.
    const config = resolveConfig({ capabilities: [], openapi: { pets: { spec: SPEC, baseUrl: `${server.origin}/v2` } } }, { root });
    outDir = config.outDir;
    space = await createSpace({
      config,
      sources: [openapiSource],
      isolation: 'in-process',
      approvalHandler: (request) => {
        approvals.push(request);
        return { approved: true };
      },
    });
    const build = await space.build();
    expect(build.errors).toEqual([]);
    expect(build.warnings).toEqual([]);
  }, 60_000);

  afterAll(async () => {
    await space?.close();
    await server?.close();
  });

  it('types results from 2xx responses only: deletePet (204) is void, default (Error) is no result type', async () => {
    const dts = await readFile(path.join(outDir, 'capabilities', 'openapi-pets', 'index.d.ts'), 'utf8');
    expect(dts).toContain('export type DeletePetResult = void;');
    expect(dts).toContain('export type AddPetResult = Pet;');
    expect(dts).toContain('export type FindPetsResult = Pet[];');
    expect(dts).not.toMatch(/Result = \{\s*\/\*\* @format int32 \*\/\s*code: number/);
    // Shared component schemas are declared once for the module, by their own names.
    expect(dts.match(/export interface NewPet \{/g)).toHaveLength(1);
    expect(dts.match(/export type Pet = /g)).toHaveLength(1);
    const diagnostics = await space.check(`
import { addPet, deletePet, findPetById, findPets } from '@capabilities/openapi-pets';
const pet = await addPet({ body: { name: 'Tom', tag: 'cat' } });
const id: number = pet.id;
const none: void = await deletePet({ id });
const all: { id: number; name: string }[] = await findPets({ limit: 5 });
const one = await findPetById({ id: 1 });
export default { id, none, count: all.length, name: one.name };
`);
    expect(diagnostics).toEqual([]);
  });

  it('needs approval for writes by default (POST, DELETE), not for reads', async () => {
    const [spec] = await space.capabilities();
    const approval = Object.fromEntries((spec?.functions ?? []).map((fn) => [fn.name, fn.requiresApproval === true]));
    expect(approval).toEqual({ addPet: true, deletePet: true, findPetById: false, findPets: false });
    // The body is the named type with its description beside it (no allOf wrapper a form cannot read).
    const addPet = spec?.functions.find((fn) => fn.name === 'addPet');
    expect((addPet?.inputSchema.properties as Record<string, unknown>).body).toEqual({
      $ref: '#/$defs/NewPet',
      description: 'Pet to add to the store',
    });
  });

  it('performs a DELETE answering 204: the call resolves (nothing), and the pet is gone', async () => {
    approvals.length = 0;
    const result = await space.run(`
import { addPet, deletePet, findPets } from '@capabilities/openapi-pets';
const pet = await addPet({ body: { name: 'Tom', tag: 'cat' } });
const deleted = await deletePet({ id: pet.id });
const left = await findPets({});
export default { deleted: deleted ?? 'nothing', left: left.map((p) => p.name) };
`);
    expect(result.error).toBeUndefined();
    expect(result.result).toEqual({ deleted: 'nothing', left: ['Rex'] });
    expect(server.seen.slice(-3)).toEqual(['POST /v2/pets', expect.stringMatching(/^DELETE \/v2\/pets\/\d+$/), 'GET /v2/pets']);
    expect(approvals.map((request) => request.function)).toEqual(['addPet', 'deletePet']);
  });

  it("rejects an error status (the default response) with the API's message, not as a result", async () => {
    const error = await space.callTool('openapi-pets.findPetById', { id: 999 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'TOOL_ERROR_RESULT' });
    expect((error as Error).message).toContain('answered 404');
    expect((error as Error).message).toContain('no pet 999');
  });

  it('says a write was performed when its result does not match the declared type', async () => {
    server.misbehave.addPetWithoutId = true;
    try {
      const before = server.pets.size;
      const error = await space.callTool('openapi-pets.addPet', { body: { name: 'Ghost' } }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'INVALID_RESULT' });
      expect((error as Error).message).toMatch(
        /the call was performed \(POST \/v2\/pets answered 200\) but its result did not match the declared type: .*id/,
      );
      expect(server.pets.size).toBe(before + 1);
    } finally {
      server.misbehave.addPetWithoutId = false;
    }
  });

  it("summarises with the declarations' types: catalog and search_tools name NewPet and Pet", async () => {
    const catalog = await space.catalog();
    const signatures = Object.fromEntries(catalog.functions.map((entry) => [entry.function, entry.signature]));
    expect(signatures).toEqual({
      addPet: 'addPet(params: { body: NewPet }): Promise<Pet>',
      deletePet: 'deletePet(params: { id: number }): Promise<void>',
      findPetById: 'findPetById(params: { id: number }): Promise<Pet>',
      findPets: 'findPets(params?: { tags?: string[]; limit?: number }): Promise<Pet[]>',
    });
    const found = searchTools(catalog, 'add pet store', { detailLevel: 'summary' });
    expect(found.matches[0]).toMatchObject({ id: 'openapi-pets.addPet', signature: 'addPet(params: { body: NewPet }): Promise<Pet>' });
    expect(JSON.stringify(found)).not.toContain('unknown');
  });
});

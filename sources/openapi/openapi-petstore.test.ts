// The OpenAPI source against the Swagger Petstore (OpenAPI 3.0): discovery, declarations, calls through
// a built space's sandbox, secrets, approvals, redirects and size caps, against a real HTTP server.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/index.js';
import type { ApprovalRequest, BridgeEvent } from '../../core/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { openapiSource } from './index.js';
import { startPetstoreServer, type PetstoreServer } from './test-support/petstore-server.js';

const SPEC = path.join(import.meta.dirname, '__fixtures__', 'petstore.yaml');
const API_KEY = 'sk-petstore-4f9a1c2e7b';

describe('openapi source: the Swagger Petstore (3.0) through a space', () => {
  let server: PetstoreServer;
  let other: PetstoreServer;
  let space: Space;
  let outDir: string;
  const approvals: ApprovalRequest[] = [];
  const events: BridgeEvent[] = [];

  beforeAll(async () => {
    server = await startPetstoreServer({ apiKey: API_KEY });
    other = await startPetstoreServer({ apiKey: 'unused' });
    const root = await makeTempDir('openapi-petstore');
    const config = resolveConfig(
      {
        capabilities: [],
        openapi: {
          petstore: {
            spec: path.relative(root, SPEC),
            baseUrl: `${server.origin}/api/v3`,
            headers: { api_key: '${PETSTORE_KEY}' },
            requireApproval: 'non-get',
            redirectHosts: [new URL(other.origin).host],
          },
        },
      },
      { root, env: { PETSTORE_KEY: API_KEY } },
    );
    outDir = config.outDir;
    space = await createSpace({
      config,
      sources: [openapiSource],
      isolation: 'in-process',
      onEvent: (event) => events.push(event),
      approvalHandler: (request) => {
        approvals.push(request);
        return { approved: request.function !== 'deletePet', reason: 'test policy' };
      },
    });
    const build = await space.build();
    expect(build.errors).toEqual([]);
  }, 60_000);

  afterAll(async () => {
    await space?.close();
    await server?.close();
    await other?.close();
  });

  it('makes one typed function per operation, named by operationId, in @capabilities/openapi-petstore', async () => {
    const [spec] = await space.capabilities();
    expect(spec?.module).toBe('openapi-petstore');
    expect(spec?.version).toBe('1.0.17');
    expect(spec?.functions.map((fn) => fn.name).sort()).toEqual(
      [
        'addPet',
        'createUser',
        'createUsersWithListInput',
        'deleteOrder',
        'deletePet',
        'deleteUser',
        'findPetsByStatus',
        'findPetsByTags',
        'getInventory',
        'getOrderById',
        'getPetById',
        'getUserByName',
        'loginUser',
        'logoutUser',
        'placeOrder',
        'updatePet',
        'updatePetWithForm',
        'updateUser',
        'uploadFile',
      ].sort(),
    );
    const approval = Object.fromEntries(spec?.functions.map((fn) => [fn.name, fn.requiresApproval === true]) ?? []);
    expect(approval).toMatchObject({ getPetById: false, findPetsByStatus: false, addPet: true, deletePet: true, updateUser: true });
    // The configured api_key header is the host's: deletePet's own api_key header parameter is not an argument.
    const deletePet = spec?.functions.find((fn) => fn.name === 'deletePet');
    expect(Object.keys(deletePet?.inputSchema.properties as object)).toEqual(['petId']);
  });

  it('emits declarations with named component types that type-check programs (and reject wrong ones)', async () => {
    const dts = await readFile(path.join(outDir, 'capabilities', 'openapi-petstore', 'index.d.ts'), 'utf8');
    // Each component is a named type, declared once for the module however many functions use it:
    // #/components/schemas/Pet in getPetById's result and in findPetsByStatus's is Pet.
    expect(dts).toContain('export declare function getPetById(params: GetPetByIdParams): Promise<GetPetByIdResult>;');
    expect(dts).toContain('export type GetPetByIdResult = Pet;');
    expect(dts).toMatch(
      /export interface Pet \{[^}]*name: string;[^}]*photoUrls: string\[\];[^}]*status\?: "available" \| "pending" \| "sold";/,
    );
    expect(dts.match(/export interface Pet \{/g)).toHaveLength(1);
    expect(dts).toContain('export type FindPetsByStatusResult = Pet[];');
    expect(dts).toContain('export declare function findPetsByStatus(params?: FindPetsByStatusParams): Promise<FindPetsByStatusResult>;');
    const good = await space.check(`
import { getPetById, findPetsByStatus, loginUser } from '@capabilities/openapi-petstore';
const pet = await getPetById({ petId: 1 });
const names: string[] = pet.photoUrls;
const status: 'available' | 'pending' | 'sold' | undefined = pet.status;
const found = await findPetsByStatus({ status: 'sold' });
const token: string = await loginUser({ username: 'a', password: 'b' });
export default { names, status, found, token };
`);
    expect(good).toEqual([]);
    const bad = await space.check(`
import { getPetById, findPetsByStatus } from '@capabilities/openapi-petstore';
await getPetById({ petId: '1' });
await findPetsByStatus({ status: 'lost' });
`);
    expect(bad.map((diagnostic) => diagnostic.line)).toEqual([3, 4]);
  });

  it('calls operations from the sandbox: path, query (exploded arrays) and JSON body; JSON and text results', async () => {
    const result = await space.run(`
import { addPet, getPetById, findPetsByStatus, findPetsByTags, createUser, loginUser } from '@capabilities/openapi-petstore';
const added = await addPet({ body: { id: 7, name: 'Nemo', photoUrls: ['https://img/nemo.png'], status: 'pending', tags: [{ id: 2, name: 'fish' }, { id: 3, name: 'small' }] } });
const fetched = await getPetById({ petId: 7 });
const pending = await findPetsByStatus({ status: 'pending' });
const tagged = await findPetsByTags({ tags: ['fish', 'bird'] });
await createUser({ body: { username: 'ann', password: 'pw 1&2' } });
const session = await loginUser({ username: 'ann', password: 'pw 1&2' });
export default { added: added.name, fetched: fetched.name, pending: pending.map((p) => p.id), tagged: tagged.map((p) => p.name), session: session.startsWith('Logged in user session') };
`);
    expect(result.error).toBeUndefined();
    expect(result.result).toEqual({ added: 'Nemo', fetched: 'Nemo', pending: [7], tagged: ['Nemo'], session: true });
    const seen = server.requests.map((request) => `${request.method} ${request.url}`);
    expect(seen).toContain('GET /api/v3/pet/7');
    expect(seen).toContain('GET /api/v3/pet/findByStatus?status=pending');
    expect(seen).toContain('GET /api/v3/pet/findByTags?tags=fish&tags=bird');
    expect(seen).toContain('GET /api/v3/user/login?username=ann&password=pw%201%262');
    const post = server.requests.find((request) => request.method === 'POST' && request.url === '/api/v3/pet');
    expect(post?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(post?.body ?? '')).toMatchObject({ id: 7, name: 'Nemo' });
    expect(approvals.some((request) => request.function === 'addPet')).toBe(true);
  });

  it('sends the configured header to the API host, and never shows it in the build output, errors or events', async () => {
    const inventory = await space.callTool('openapi-petstore.getInventory', {});
    expect(inventory).toMatchObject({ available: 1 });
    expect(server.requests.at(-1)?.headers.api_key).toBe(API_KEY);
    for (const file of await readdir(outDir, { recursive: true })) {
      const full = path.join(outDir, String(file));
      if (/\.(json|js|ts)$/.test(full)) expect(await readFile(full, 'utf8')).not.toContain(API_KEY);
    }
    expect(JSON.stringify(events)).not.toContain(API_KEY);
  });

  it('turns an HTTP error status into a ToolCallError with the status and the start of the body', async () => {
    const result = await space.run(`
import { getPetById } from '@capabilities/openapi-petstore';
export default await getPetById({ petId: 404404 });
`);
    expect(result.success).toBe(false);
    expect(result.error).toMatchObject({ code: 'TOOL_ERROR_RESULT', capability: 'openapi-petstore', function: 'getPetById' });
    expect(result.error?.message).toMatch(
      /openapi-petstore\.getPetById: GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/pet\/404404 answered 404 Not Found: \{"code":1,"type":"error","message":"Pet not found"\}/,
    );
  });

  it('asks approval for non-GET operations and honours a denial (the request is never sent)', async () => {
    const before = server.requests.length;
    const denied = await space.callTool('openapi-petstore.deletePet', { petId: 1 }).catch((error: unknown) => error);
    expect(denied).toMatchObject({ code: 'APPROVAL_DENIED' });
    expect(approvals.at(-1)).toMatchObject({ capability: 'openapi-petstore', function: 'deletePet', params: { petId: 1 } });
    expect(server.requests.length).toBe(before);
  });

  it('follows a redirect to a listed host without the configured headers; refuses an unlisted one', async () => {
    server.redirectOnce('/api/v3/pet/1', `${other.origin}/api/v3/pet/1`);
    const pet = await space.callTool('openapi-petstore.getPetById', { petId: 1 });
    expect(pet).toMatchObject({ id: 1, name: 'Rex' });
    const followed = other.requests.at(-1);
    expect(followed?.url).toBe('/api/v3/pet/1');
    expect(followed?.headers.api_key).toBeUndefined();
    expect(server.requests.at(-1)?.headers.api_key).toBe(API_KEY);

    server.redirectOnce('/api/v3/pet/1', 'http://localhost:9/steal');
    const refused = await space.callTool('openapi-petstore.getPetById', { petId: 1 }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'FORBIDDEN' });
    expect((refused as Error).message).toContain('redirected to another host (localhost:9); add it to openapi.petstore.redirectHosts');
  });
});

describe('openapi source: limits and bad specs', () => {
  let server: PetstoreServer;
  beforeAll(async () => {
    server = await startPetstoreServer({ apiKey: API_KEY });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function spaceWith(api: Record<string, unknown>, env: Record<string, string> = {}): Promise<Space> {
    const root = await makeTempDir('openapi-limits');
    const config = resolveConfig(
      { capabilities: [], openapi: { petstore: { spec: SPEC, baseUrl: `${server.origin}/api/v3`, ...api } } },
      { root, env },
    );
    return createSpace({ config, sources: [openapiSource], isolation: 'in-process' });
  }

  it('refuses a response larger than maxResponseBytes while it streams in', async () => {
    const space = await spaceWith({ maxResponseBytes: 2048 });
    try {
      server.padPets(500);
      const error = await space.callTool('openapi-petstore.findPetsByStatus', { status: 'available' }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'RESULT_TOO_LARGE' });
      expect((error as Error).message).toContain('larger than 2048 bytes (openapi.petstore.maxResponseBytes)');
    } finally {
      server.padPets(0);
      await space.close();
    }
  });

  it('cuts the configured header out of an error body that echoes it', async () => {
    const wrongKey = 'sk-wrong-9b8a7c6d5e';
    const space = await spaceWith({ headers: { api_key: '${PETSTORE_KEY}' } }, { PETSTORE_KEY: wrongKey });
    try {
      const error = await space.callTool('openapi-petstore.getInventory', {}).catch((caught: unknown) => caught);
      expect(server.requests.at(-1)?.headers.api_key).toBe(wrongKey);
      expect(error).toMatchObject({ code: 'TOOL_ERROR_RESULT' });
      expect((error as Error).message).toContain(
        'answered 401 Unauthorized: {"code":401,"message":"api_key [REDACTED: header api_key] is not valid"}',
      );
      expect(JSON.stringify(error)).not.toContain(wrongKey);
    } finally {
      await space.close();
    }
  });

  it('ends a call in flight when its run is cancelled (the server sees the request go away)', async () => {
    const space = await spaceWith({});
    try {
      const held = server.holdOnce('/api/v3/pet/1');
      const controller = new AbortController();
      void held.received.then(() => controller.abort());
      const result = await space.run(
        `
import { getPetById } from '@capabilities/openapi-petstore';
export default await getPetById({ petId: 1 });
`,
        { signal: controller.signal },
      );
      expect(result.success).toBe(false);
      await held.gone;
    } finally {
      await space.close();
    }
  }, 30_000);

  it("limits the API's calls together with its rateLimit", async () => {
    const space = await spaceWith({ rateLimit: { requests: 1, period: 'hour' } });
    try {
      await space.callTool('openapi-petstore.getPetById', { petId: 1 });
      const before = server.requests.length;
      const limited = await space.callTool('openapi-petstore.findPetsByStatus', {}).catch((error: unknown) => error);
      expect(limited).toMatchObject({ code: 'RATE_LIMITED' });
      expect(server.requests.length).toBe(before);
    } finally {
      await space.close();
    }
  });

  it('keeps only the operations include and exclude select (by tag and by operation)', async () => {
    const space = await spaceWith({ include: { tags: ['store'], operations: ['getPetById'] }, exclude: { operations: ['deleteOrder'] } });
    try {
      const build = await space.build();
      expect(build.errors).toEqual([]);
      const [spec] = await space.capabilities();
      expect(spec?.functions.map((fn) => fn.name).sort()).toEqual(['getInventory', 'getOrderById', 'getPetById', 'placeOrder']);
    } finally {
      await space.close();
    }
  });
});

/**
 * Spec size bombs (issue 28, item 4): a small spec that shares structure — by YAML alias, by `$ref`, or
 * by repeating equal schemas — must not build hundreds of megabytes. Shared schemas are named and
 * written once per function; what still multiplies past the output budget fails its API at once with a
 * message naming the spec, and nothing of it is written. Assertions are on output sizes, not time.
 * Each case is followed by a healthy API of the same build, built and called over HTTP.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/index.js';
import { MIN_OUTPUT_CHARS } from '../../sources/openapi/convert-schema.js';
import { openapiSource } from '../../sources/openapi/index.js';
import { createSpace } from '../../space/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const PETSTORE = fileURLToPath(new URL('../../sources/openapi/__fixtures__/petstore-expanded.yaml', import.meta.url));
const HEAD = ['openapi: 3.0.3', 'info: { title: bomb, version: "1" }', 'servers: [{ url: "http://127.0.0.1:9" }]'];

/** One large schema (about 60 KB written out), aliased by 600 operations: 211 KB of YAML, 36 MB written out. */
function wideAliasBomb(): string {
  const lines = [...HEAD, 'x-shared:', '  big: &big', '    type: object', '    properties:'];
  for (let i = 0; i < 1200; i++) lines.push(`      field${i}: { type: string, description: "field number ${i} of the shared schema" }`);
  lines.push('paths:');
  for (let i = 0; i < 600; i++)
    lines.push(
      `  /op${i}:`,
      '    get:',
      `      operationId: op${i}`,
      '      responses:',
      "        '200':",
      '          description: ok',
      '          content:',
      '            application/json:',
      '              schema: *big',
    );
  return `${lines.join('\n')}\n`;
}

/** Levels of aliases within the YAML parser's cap: each level uses the one below ten times (100 leaves per use). */
function nestedAliasSpec(): string {
  const lines = [...HEAD, 'x-levels:', '  l0: &l0', '    type: object', '    properties:'];
  for (let i = 0; i < 40; i++) lines.push(`      p${i}: { type: string, description: "a property of the leaf schema, number ${i}" }`);
  for (let level = 1; level <= 2; level++) {
    lines.push(`  l${level}: &l${level}`, '    type: object', '    properties:');
    for (let i = 0; i < 10; i++) lines.push(`      c${i}: *l${level - 1}`);
  }
  lines.push('paths:');
  for (let i = 0; i < 2; i++)
    lines.push(
      `  /deep${i}:`,
      '    post:',
      `      operationId: deep${i}`,
      '      requestBody: { content: { application/json: { schema: *l2 } } }',
      '      responses:',
      "        '200':",
      '          description: ok',
      '          content:',
      '            application/json:',
      '              schema: *l2',
    );
  return `${lines.join('\n')}\n`;
}

/** Equal inline schemas (no alias, no $ref): 30 copies of one 2 KB object in one response, JSON. */
function equalSchemasSpec(): string {
  const item = () => ({
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, { type: 'integer', description: `field ${i}` }])),
  });
  const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`slot${i}`, item()]));
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'equal', version: '1' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths: {
      '/slots': {
        get: {
          operationId: 'slots',
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties } } } } },
        },
      },
    },
  });
}

/** A 40 KB component referenced by 500 operations: every function carries it, 20 MB in all. */
function refFanOutSpec(): string {
  const properties = Object.fromEntries(
    Array.from({ length: 800 }, (_, i) => [`field${i}`, { type: 'string', description: `field number ${i} of the shared component` }]),
  );
  const paths = Object.fromEntries(
    Array.from({ length: 500 }, (_, i) => [
      `/op${i}`,
      {
        get: {
          operationId: `op${i}`,
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Big' } } } } },
        },
      },
    ]),
  );
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'fan', version: '1' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths,
    components: { schemas: { Big: { type: 'object', properties } } },
  });
}

async function sizeOf(file: string): Promise<number> {
  return (await stat(file)).size;
}

describe('spec limits: a small spec cannot build a huge output', () => {
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    // The healthy neighbour: petstore-expanded's findPets.
    server = createServer((request, response) => {
      response
        .writeHead(request.url?.startsWith('/v2/pets') ? 200 : 404, { 'content-type': 'application/json' })
        .end(JSON.stringify([{ id: 1, name: 'Rex' }]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Builds `spec` as API `bomb` beside the healthy `pets`, and checks the healthy one is built and answers. */
  async function buildBeside(name: string, spec: string) {
    const root = await makeTempDir(`spec-limits-${name}`);
    await writeFile(path.join(root, name), spec);
    const config = resolveConfig(
      { capabilities: [], openapi: { bomb: { spec: name }, pets: { spec: PETSTORE, baseUrl: `${origin}/v2` } } },
      { root },
    );
    const space = await createSpace({ config, sources: [openapiSource], isolation: 'in-process' });
    const build = await space.build();
    const healthy = async (): Promise<void> => {
      expect(build.sources.find((source) => source.source === 'openapi:pets')?.status).toBe('built');
      expect(await space.callTool('openapi-pets.findPets', {})).toEqual([{ id: 1, name: 'Rex' }]);
    };
    return { root, config, space, build, healthy, spec };
  }

  it('refuses a YAML alias bomb before anything walks it, naming the spec; nothing of it is written', async () => {
    const { config, space, build, healthy, spec } = await buildBeside('wide.yaml', wideAliasBomb());
    try {
      expect(spec.length).toBeLessThan(250_000);
      const failure = build.errors.find((error) => error.source === 'openapi:bomb');
      expect(failure?.message).toMatch(
        /openapi "bomb" \(.*wide\.yaml\): its YAML aliases expand the spec's \d+ characters to about \d+ \(more than \d+/,
      );
      expect(failure?.message).toContain('components/schemas');
      expect(await readdir(path.join(config.outDir, 'capabilities'))).not.toContain('openapi-bomb');
      // The whole build output stays small.
      const manifest = await sizeOf(path.join(config.outDir, 'manifest.json'));
      expect(manifest).toBeLessThan(200_000);
      await healthy();
    } finally {
      await space.close();
    }
  }, 180_000);

  it('names a schema shared by alias: nested aliases build small, each level declared once', async () => {
    const { config, space, build, healthy, spec } = await buildBeside('nested.yaml', nestedAliasSpec());
    try {
      expect(build.errors).toEqual([]);
      const dir = path.join(config.outDir, 'capabilities', 'openapi-bomb');
      // Written out in full, each use of l2 is 100 copies of the leaf (about 4 KB): 1.6 MB for the 4 uses.
      expect(await sizeOf(path.join(dir, 'schema.json'))).toBeLessThan(spec.length * 20);
      const dts = await readFile(path.join(dir, 'index.d.ts'), 'utf8');
      expect(dts.length).toBeLessThan(spec.length * 2);
      expect(dts.match(/p39\?: string;/g)).toHaveLength(1);
      const schema = JSON.parse(await readFile(path.join(dir, 'schema.json'), 'utf8')) as {
        functions: { name: string; inputSchema: { $defs?: object } }[];
      };
      expect(Object.keys(schema.functions.find((fn) => fn.name === 'deep0')?.inputSchema.$defs ?? {})).toHaveLength(3);
      await healthy();
    } finally {
      await space.close();
    }
  }, 180_000);

  it('names schemas shared by being equal: thirty equal inline objects are one type', async () => {
    const { config, space, build, healthy, spec } = await buildBeside('equal.json', equalSchemasSpec());
    try {
      expect(build.errors).toEqual([]);
      const dir = path.join(config.outDir, 'capabilities', 'openapi-bomb');
      const schema = await readFile(path.join(dir, 'schema.json'), 'utf8');
      expect(schema.length).toBeLessThan(spec.length / 4);
      const dts = await readFile(path.join(dir, 'index.d.ts'), 'utf8');
      expect(dts.match(/f39\?: number;/g)).toHaveLength(1);
      expect(new Set(dts.match(/slot\d+\?: (\w+);/g)?.map((line) => line.split(': ')[1]))).toEqual(new Set(['SlotsSlot0;']));
      await healthy();
    } finally {
      await space.close();
    }
  }, 180_000);

  it('refuses an API whose schemas multiply through $ref past the output budget, naming the spec', async () => {
    const { config, space, build, healthy, spec } = await buildBeside('fan.json', refFanOutSpec());
    try {
      expect(spec.length * 64).toBeLessThan(MIN_OUTPUT_CHARS);
      const failure = build.errors.find((error) => error.source === 'openapi:bomb');
      expect(failure?.message).toMatch(
        /openapi "bomb" \(.*fan\.json\): its schemas, written out for its operations, take more than \d+ characters/,
      );
      expect(failure?.message).toContain('include/exclude');
      expect(await readdir(path.join(config.outDir, 'capabilities'))).not.toContain('openapi-bomb');
      await healthy();
    } finally {
      await space.close();
    }
  }, 180_000);
});

describe('output limits for any source: schemas built in code that share objects', () => {
  it('fails a defineTool module whose shared objects would be written out past the budget, and builds the healthy one', async () => {
    const { mkdir } = await import('node:fs/promises');
    const defineTool = new URL('../../core/define-tool.ts', import.meta.url).href;
    const root = await makeTempDir('spec-limits-code');
    await mkdir(path.join(root, 'capabilities'));
    // Ten levels, each using the level below ten times: 10^10 leaves written out, a few lines of code.
    await writeFile(
      path.join(root, 'capabilities', 'nested.ts'),
      `import { defineFunction, defineTool } from '${defineTool}';
let level: Record<string, unknown> = { type: 'string' };
for (let depth = 0; depth < 10; depth++) {
  const below = level;
  level = { type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => ['c' + i, below])) };
}
export const nested = defineTool({ name: 'nested', functions: { take: defineFunction({ parameters: { type: 'object', properties: { tree: level } } as never, handler: () => 1 }) } });
`,
    );
    await writeFile(
      path.join(root, 'capabilities', 'healthy.ts'),
      `import { defineFunction, defineTool } from '${defineTool}';
export const healthy = defineTool({ name: 'healthy', functions: { add: defineFunction({ parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }, returns: { type: 'number' }, handler: ({ a, b }) => a + b }) } });
`,
    );
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.ts'] }));
    const space = await createSpace({ cwd: root, isolation: 'in-process' });
    try {
      const build = await space.build();
      const failure = build.errors.find((error) => error.source.includes('nested.ts'));
      expect(failure?.message).toMatch(/would be written out as more than \d+ characters/);
      expect(await readdir(path.join(root, '.agent-spaces', 'capabilities'))).not.toContain('nested');
      expect(await space.callTool('healthy.add', { a: 2, b: 3 })).toBe(5);
    } finally {
      await space.close();
    }
  }, 180_000);
});

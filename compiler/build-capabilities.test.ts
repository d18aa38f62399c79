import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveConfig, type ResolvedConfig } from '../config/index.js';
import { createMcpSource, mcpSource, type McpConnection } from '../sources/mcp/index.js';
import { createFilesSource, filesSource } from '../sources/index.js';
import { buildCapabilities, createStdSource } from '../space/index.js';
import { defineTool, type CapabilitySpec } from '../core/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { typeCheckFiles } from '../test/support/tsc.js';
import type { BuildResult } from './build-capabilities.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CORE_URL = pathToFileURL(path.join(REPO, 'core/define-tool.ts')).href;
/** The tool files, built as the compiler alone used to: a JSON tool without an implementation is built too. */
const files = createFilesSource({ requireImplementations: false });

const TRAIN_TOOL = {
  name: 'trainSchedule',
  description: 'Get train schedule information',
  version: '1.0.0',
  functions: [
    {
      name: 'getSchedule',
      description: 'Get all scheduled trains',
      parameters: { type: 'object', properties: { station: { type: 'string', description: 'Filter by station name' } } },
      returns: {
        type: 'array',
        items: { type: 'object', properties: { id: { type: 'string' }, hour: { type: 'integer' } }, required: ['id', 'hour'] },
      },
    },
    { name: 'getTrainDetails', parameters: { type: 'object', properties: { trainId: { type: 'string', required: true } } } },
  ],
  config: { rateLimit: { requests: 100, period: 'minute' } },
};

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Get current weather for a location',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['location'],
  },
};

const TS_TOOL = `import { defineFunction, defineTool } from '${CORE_URL}';
import { z } from 'zod';
export const crm = defineTool({
  name: 'crm',
  functions: {
    searchCustomers: defineFunction({
      description: 'Search customers',
      parameters: z.object({ query: z.string(), limit: z.number().default(10) }),
      returns: z.array(z.object({ id: z.string(), name: z.string() })),
      handler: ({ query }) => [{ id: '1', name: query }],
    }),
    createTicket: defineFunction({
      parameters: { type: 'object', properties: { subject: { type: 'string' } }, required: ['subject'] },
      requiresApproval: true,
      approvalMessage: (p) => 'create ' + p.subject,
      handler: ({ subject }) => ({ id: 't1', subject }),
    }),
  },
});
`;

async function makeSpace(extra: Record<string, unknown> = {}): Promise<{ root: string; config: ResolvedConfig }> {
  const root = await makeTempDir('build');
  await mkdir(path.join(root, 'tools'));
  await mkdir(path.join(root, 'capabilities'));
  await writeFile(path.join(root, 'tools/train-schedule.json'), JSON.stringify(TRAIN_TOOL));
  await writeFile(path.join(root, 'tools/weather.json'), JSON.stringify(WEATHER_TOOL));
  await writeFile(path.join(root, 'capabilities/crm.ts'), TS_TOOL);
  const config = resolveConfig({ capabilities: ['tools/*.json', 'capabilities/*.ts'], ...extra }, { root, env: {} });
  return { root, config };
}

function spec(result: BuildResult, module: string): CapabilitySpec {
  const found = result.manifest.capabilities.find((capability) => capability.module === module);
  if (!found) throw new Error(`no module ${module} in ${result.manifest.capabilities.map((c) => c.module).join(', ')}`);
  return found;
}

/** An SDK McpServer in this process, reached over the in-memory transport. */
function inMemoryConnector(build: (server: McpServer) => void) {
  return async (name: string): Promise<McpConnection> => {
    const server = new McpServer({ name, version: '2.0.0' });
    build(server);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(clientTransport);
    return { client, serverInfo: client.getServerVersion(), transport: 'memory', stderrTail: () => '', close: () => client.close() };
  };
}

describe('buildCapabilities without sources', () => {
  it("compiles the config's default sources: its tool files (JSON ones with or without an implementation) and the standard library", async () => {
    const { config } = await makeSpace();
    const result = await buildCapabilities({ config });
    const modules = result.manifest.capabilities.map((capability) => capability.module);
    expect(modules).toEqual(expect.arrayContaining(['train-schedule', 'get-weather', 'crm', 'std-fs', 'std-http']));
    expect(result.errors).toEqual([]);
  }, 120_000);
});

describe('buildCapabilities', () => {
  let space: { root: string; config: ResolvedConfig };
  let result: BuildResult;

  beforeAll(async () => {
    space = await makeSpace();
    result = await buildCapabilities({ config: space.config, sources: [files] });
  });

  it('compiles the seed format, OpenAI-style tools and defineTool modules into one manifest', () => {
    expect(result.errors).toEqual([]);
    expect(result.manifest.capabilities.map((c) => c.module)).toEqual(['crm', 'get-weather', 'train-schedule']);
    const train = spec(result, 'train-schedule');
    expect(train.namespace).toBe('trainSchedule');
    expect(train.config).toEqual({ rateLimit: { requests: 100, period: 'minute' } });
    expect(train.source).toEqual({ kind: 'json', path: path.join('tools', 'train-schedule.json') });
    // The seed's `"required": true` inside a property becomes standard JSON Schema.
    expect(train.functions.find((f) => f.name === 'getTrainDetails')?.inputSchema).toEqual({
      type: 'object',
      properties: { trainId: { type: 'string' } },
      required: ['trainId'],
    });
    const weather = spec(result, 'get-weather');
    expect(weather.functions.map((f) => [f.name, f.toolName])).toEqual([['getWeather', 'get_weather']]);
    const crm = spec(result, 'crm');
    expect(crm.source).toEqual({ kind: 'typescript', path: path.join('capabilities', 'crm.ts'), exportName: 'crm' });
    const search = crm.functions.find((f) => f.name === 'searchCustomers');
    expect(search?.inputSchema).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'number', default: 10 } },
      required: ['query'],
    });
    expect(crm.functions.find((f) => f.name === 'createTicket')?.requiresApproval).toBe(true);
  });

  it('writes the documented layout, and schema.json is the spec the bridge loads', async () => {
    const out = space.config.outDir;
    for (const module of ['crm', 'get-weather', 'train-schedule']) {
      for (const file of ['index.d.ts', 'index.js', 'schema.json', 'capability.json']) {
        await expect(readFile(path.join(out, 'capabilities', module, file), 'utf8')).resolves.toBeTruthy();
      }
    }
    const schema = JSON.parse(await readFile(path.join(out, 'capabilities/train-schedule/schema.json'), 'utf8')) as unknown;
    expect(schema).toEqual(spec(result, 'train-schedule'));
    const capability = JSON.parse(await readFile(path.join(out, 'capabilities/train-schedule/capability.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(capability).toMatchObject({ module: 'train-schedule', version: '1.0.0', hash: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const catalog = JSON.parse(await readFile(path.join(out, 'catalog.json'), 'utf8')) as {
      functions: { id: string; signature: string }[];
    };
    expect(catalog.functions.map((f) => f.id)).toEqual([
      'crm.createTicket',
      'crm.searchCustomers',
      'get-weather.getWeather',
      'train-schedule.getSchedule',
      'train-schedule.getTrainDetails',
    ]);
    expect(catalog.functions.find((f) => f.id === 'get-weather.getWeather')?.signature).toBe(
      'getWeather(params: { location: string; unit?: "celsius" | "fahrenheit" }): Promise<unknown>',
    );
  });

  it('emits declarations that type-check under --strict and reject wrong calls', async () => {
    const out = space.config.outDir;
    const good = path.join(out, 'usage-good.ts');
    const bad = path.join(out, 'usage-bad.ts');
    await writeFile(
      good,
      `/// <reference path="./capabilities.d.ts" />
import { trainSchedule } from '@capabilities/train-schedule';
import * as crm from '@capabilities/crm';
export async function main() {
  const trips = await trainSchedule.getSchedule();
  const hours: number[] = trips.map((t) => t.hour);
  const found = await crm.searchCustomers({ query: 'acme' });
  return [hours, found.map((c) => c.name)];
}
`,
    );
    await writeFile(
      bad,
      `/// <reference path="./capabilities.d.ts" />
import { trainSchedule } from '@capabilities/train-schedule';
export async function main() { return trainSchedule.getTrainDetails({}); }
`,
    );
    expect(typeCheckFiles([good])).toEqual([]);
    const errors = typeCheckFiles([bad]);
    expect(errors.join('\n')).toMatch(/trainId/);
  });

  it('rebuilds nothing when nothing changed, and only the changed module otherwise', async () => {
    const again = await buildCapabilities({ config: space.config, sources: [files] });
    expect(again.written).toEqual([]);
    expect(again.sources.every((s) => s.status === 'unchanged')).toBe(true);

    const changed = { ...WEATHER_TOOL, description: 'Weather, now with a new description' };
    await writeFile(path.join(space.root, 'tools/weather.json'), JSON.stringify(changed));
    const third = await buildCapabilities({ config: space.config, sources: [files] });
    expect(third.sources.filter((s) => s.status === 'built').map((s) => s.source)).toEqual([path.join('tools', 'weather.json')]);
    expect(third.written.filter((file) => file.startsWith('capabilities/'))).toEqual(
      expect.arrayContaining(['capabilities/get-weather/schema.json', 'capabilities/get-weather/capability.json']),
    );
    expect(third.written.some((file) => file.startsWith('capabilities/train-schedule/'))).toBe(false);
  });

  it('is deterministic: the same sources give the same bytes wherever the space lives', async () => {
    const copy = await makeTempDir('build-copy');
    await cp(space.root, copy, { recursive: true, filter: (source) => !source.includes('.agent-spaces') });
    const config = resolveConfig({ capabilities: ['tools/*.json', 'capabilities/*.ts'] }, { root: copy, env: {} });
    await buildCapabilities({ config, sources: [files] });
    for (const file of [
      'capabilities.d.ts',
      'catalog.json',
      'manifest.json',
      'capabilities/crm/index.d.ts',
      'capabilities/train-schedule/index.js',
    ]) {
      expect(await readFile(path.join(config.outDir, file), 'utf8')).toBe(await readFile(path.join(space.config.outDir, file), 'utf8'));
    }
  });

  it('removes the output of a source that no longer exists', async () => {
    const { root, config } = await makeSpace();
    await buildCapabilities({ config, sources: [files] });
    await rm(path.join(root, 'tools/weather.json'));
    const next = await buildCapabilities({ config, sources: [files] });
    expect(next.removed).toEqual(['capabilities/get-weather']);
    expect(next.manifest.capabilities.map((c) => c.module)).toEqual(['crm', 'train-schedule']);
  });
});

describe('failures', () => {
  it("reports a broken source, builds the others, and keeps the broken one's previous output intact", async () => {
    const { root, config } = await makeSpace();
    await buildCapabilities({ config, sources: [files] });
    const before = await readFile(path.join(config.outDir, 'capabilities/train-schedule/index.d.ts'), 'utf8');
    await writeFile(path.join(root, 'tools/train-schedule.json'), '{ "name": "trainSchedule", "functions": [ ');
    const result = await buildCapabilities({ config, sources: [files] });
    expect(result.errors).toEqual([
      { source: path.join('tools', 'train-schedule.json'), message: expect.stringContaining('not valid JSON') },
    ]);
    expect(result.sources.find((s) => s.source === path.join('tools', 'train-schedule.json'))?.status).toBe('kept-previous');
    expect(await readFile(path.join(config.outDir, 'capabilities/train-schedule/index.d.ts'), 'utf8')).toBe(before);
    expect(result.manifest.capabilities.map((c) => c.module)).toContain('get-weather');
  });

  it('explains what is wrong with a tool file that is not a tool', async () => {
    const { root, config } = await makeSpace();
    await writeFile(path.join(root, 'tools/odd.json'), JSON.stringify({ name: 'odd', functions: [{ description: 'no name' }] }));
    await writeFile(path.join(root, 'tools/scalar.json'), JSON.stringify({ name: 'scalar', parameters: { type: 'string' } }));
    const result = await buildCapabilities({ config, sources: [files] });
    const messages = Object.fromEntries(result.errors.map((e) => [path.basename(e.source), e.message]));
    expect(messages['odd.json']).toMatch(/functions\[0\]\.name: /);
    expect(messages['scalar.json']).toMatch(/must be an object schema/);
  });

  it('fails a source whose schema ajv cannot compile, keeps its previous output, and builds the others', async () => {
    const { root, config } = await makeSpace();
    await buildCapabilities({ config, sources: [files] });
    const before = await readFile(path.join(config.outDir, 'capabilities/get-weather/index.d.ts'), 'utf8');
    const broken = { ...WEATHER_TOOL, parameters: { type: 'object', properties: { location: { $ref: '#/definitions/place' } } } };
    await writeFile(path.join(root, 'tools/weather.json'), JSON.stringify(broken));
    const result = await buildCapabilities({ config, sources: [files] });
    expect(result.errors).toEqual([
      {
        source: path.join('tools', 'weather.json'),
        message: `${path.join('tools', 'weather.json')}: tool "get_weather": the parameters schema cannot be compiled: can't resolve reference #/definitions/place from id #; fix that schema (this source is not built until it compiles)`,
      },
    ]);
    expect(result.sources.find((s) => s.source === path.join('tools', 'weather.json'))?.status).toBe('kept-previous');
    expect(await readFile(path.join(config.outDir, 'capabilities/get-weather/index.d.ts'), 'utf8')).toBe(before);
    expect(result.manifest.capabilities.map((c) => c.module)).toEqual(['crm', 'get-weather', 'train-schedule']);
  });

  it('warns about an unknown format, on every build, and remembers compiled schemas in the manifest', async () => {
    const { root, config } = await makeSpace();
    const planned = { name: 'plan', parameters: { type: 'object', properties: { quarter: { type: 'string', format: 'fiscal-quarter' } } } };
    await writeFile(path.join(root, 'tools/plan.json'), JSON.stringify(planned));
    const expected = {
      source: path.join('tools', 'plan.json'),
      pointer: '/inputSchema/properties/quarter',
      message:
        'tool "plan": the schema at /inputSchema/properties/quarter has format "fiscal-quarter", which is not known; values are not checked against it',
    };
    const first = await buildCapabilities({ config, sources: [files] });
    expect(first.warnings).toContainEqual(expected);
    const stored = JSON.parse(await readFile(path.join(config.outDir, 'manifest.json'), 'utf8')) as {
      checkedSchemas: Record<string, string[]>;
    };
    expect(Object.keys(stored.checkedSchemas)).toHaveLength(8); // 6 parameters and 2 returns schemas
    const again = await buildCapabilities({ config, sources: [files] });
    expect(again.written).toEqual([]);
    expect(again.warnings).toContainEqual(expected);
  });

  it('reports a standard-library style definition with a misplaced key as a failed source, not a crashed build', async () => {
    const { config } = await makeSpace();
    const definition = defineTool({ name: 'extra', functions: { wipe: { config: { requiresApproval: true }, handler: () => null } } });
    const result = await buildCapabilities({
      config,
      sources: [files, createStdSource(config, { extraTools: { 'std-extra': definition } })],
    });
    expect(result.errors).toEqual([
      { source: 'std', message: expect.stringContaining('std:extra: functions.wipe.config.requiresApproval is not a function key') },
    ]);
    expect(result.manifest.capabilities.map((c) => c.module)).toEqual(['crm', 'get-weather', 'train-schedule']);
  });

  it('reports a capability pattern that matches no file', async () => {
    const { root } = await makeSpace();
    const config = resolveConfig({ capabilities: ['tools/*.json', 'missing.json'] }, { root, env: {} });
    const result = await buildCapabilities({ config, sources: [files] });
    expect(result.errors).toEqual([{ source: 'missing.json', message: expect.stringContaining('not found') }]);
  });

  it('reports a named folder or a named file of no capability kind instead of skipping it silently', async () => {
    const { root } = await makeSpace();
    await writeFile(path.join(root, 'tools/x.yaml'), 'name: x');
    const config = resolveConfig({ capabilities: ['tools', 'tools/x.yaml', 'tools/*'] }, { root, env: {} });
    const result = await buildCapabilities({ config, sources: [files] });
    expect(result.errors).toEqual([
      {
        source: 'tools',
        message: 'capability entry "tools" is a folder: name its files with a glob, such as "tools/*.json" or "tools/*.ts"',
      },
      {
        source: 'tools/x.yaml',
        message: 'tools/x.yaml is not a capability file: use JSON tool files (.json) or defineTool modules (.ts, .mts, .js, .mjs)',
      },
    ]);
    expect(result.manifest.capabilities.map((c) => c.module)).toEqual(['get-weather', 'train-schedule']); // the glob still works, and skips x.yaml
  });

  it('gives tools with non-ASCII names ASCII module names the sandbox can import, and says so', async () => {
    const space = await makeSpace();
    await writeFile(path.join(space.root, 'tools/a.json'), JSON.stringify({ ...WEATHER_TOOL, name: 'größe_prüfen' }));
    await writeFile(path.join(space.root, 'tools/b.json'), JSON.stringify({ ...WEATHER_TOOL, name: '日本語' }));
    const result = await buildCapabilities({ config: space.config, sources: [files] });
    expect(result.manifest.capabilities.map((c) => c.module)).toEqual([
      'capability',
      'crm',
      'get-weather',
      'grosse-prufen',
      'train-schedule',
    ]);
    expect(spec(result, 'grosse-prufen').namespace).toBe('größePrüfen');
    expect(result.warnings.filter((w) => /ASCII/.test(w.message)).map((w) => w.capability)).toEqual(['grosse-prufen', 'capability']);
  });

  it('gives clashing module names distinct, reported names', async () => {
    const { root, config } = await makeSpace();
    await writeFile(path.join(root, 'tools/weather-2.json'), JSON.stringify({ ...WEATHER_TOOL, description: 'another' }));
    const result = await buildCapabilities({ config, sources: [files] });
    const modules = result.manifest.capabilities.map((c) => c.module);
    expect(modules).toEqual(expect.arrayContaining(['get-weather', 'get-weather-2']));
    expect(result.warnings.some((w) => w.message.includes('"get-weather" is taken'))).toBe(true);
  });
});

describe('JSON tools and their implementation', () => {
  it('fails, when asked to, a JSON tool nothing can perform, saying what to write', async () => {
    const { config } = await makeSpace();
    const result = await buildCapabilities({ config, sources: [filesSource] });
    const weather = path.join('tools', 'weather.json');
    expect(result.errors).toContainEqual({
      source: weather,
      message: `${weather}: tool "get_weather" has no "implementation", so nothing can perform its calls: add "implementation": "./impl/weather.ts" next to its "name" (a path relative to ${weather}), a module that exports one function per tool name (export async function get_weather(params) { … })`,
    });
    expect(result.errors.find((failure) => failure.source.endsWith('train-schedule.json'))?.message).toContain(
      '(export async function getSchedule(params) { … }; export async function getTrainDetails(params) { … })',
    );
    expect(result.manifest.capabilities.map((c) => c.module)).toEqual(['crm']); // the defineTool module has its handlers
  });

  it('builds a JSON tool without implementation when the caller serves its module, or when not asked to check', async () => {
    const { config } = await makeSpace();
    const served = defineTool({ name: 'served', functions: { get_weather: { handler: () => 'sunny' } } });
    const built = await buildCapabilities({
      config,
      sources: [createFilesSource({ handlers: { 'get-weather': served, 'train-schedule': served } })],
    });
    expect(built.errors).toEqual([]);
    const unchecked = await buildCapabilities({ config, sources: [files] });
    expect(unchecked.errors).toEqual([]);
  });

  it('builds each tool of a file holding an array as its own module, each needing its implementation', async () => {
    const root = await makeTempDir('build-array');
    await mkdir(path.join(root, 'impl'));
    await writeFile(path.join(root, 'impl/weather.ts'), 'export async function get_weather() { return 1; }\n');
    await writeFile(
      path.join(root, 'tools.json'),
      JSON.stringify([
        { ...WEATHER_TOOL, implementation: './impl/weather.ts' },
        { type: 'function', function: { name: 'get-time', parameters: { type: 'object', properties: {} } } },
      ]),
    );
    const config = resolveConfig({ capabilities: ['tools.json'] }, { root, env: {} });
    const failed = await buildCapabilities({ config, sources: [filesSource] });
    expect(failed.errors).toEqual([
      {
        source: 'tools.json',
        message: expect.stringMatching(/^tools\.json: tool "get-time" has no "implementation".*\(export \{ handler as "get-time" \}\)$/),
      },
    ]);
    const built = await buildCapabilities({ config, sources: [files] });
    expect(built.sources).toEqual([{ source: 'tools.json', status: 'built', modules: ['get-time', 'get-weather'], functions: 2 }]);
    expect(spec(built, 'get-weather').source).toEqual({ kind: 'json', path: 'tools.json', implementation: './impl/weather.ts' });
  });
});

describe('a JSON tool whose implementation names no file', () => {
  it('fails its file, saying where it looked, and builds once the file is there (with or without its extension)', async () => {
    const root = await makeTempDir('build-missing-impl');
    await writeFile(path.join(root, 'weather.json'), JSON.stringify({ ...WEATHER_TOOL, implementation: './impl/gone' }));
    const config = resolveConfig({ capabilities: ['*.json'] }, { root, env: {} });
    const failed = await buildCapabilities({ config, sources: [files] });
    expect(failed.errors).toEqual([
      {
        source: 'weather.json',
        message: `weather.json: tool "get_weather": its "implementation" "./impl/gone" names no file (looked for ${path.join(root, 'impl', 'gone')}; the path is relative to weather.json)`,
      },
    ]);
    expect(failed.manifest.capabilities).toEqual([]);
    await mkdir(path.join(root, 'impl'));
    await writeFile(path.join(root, 'impl/gone.ts'), 'export async function get_weather() { return 1; }\n');
    const built = await buildCapabilities({ config, sources: [files] });
    expect(built.errors).toEqual([]);
    expect(built.manifest.capabilities.map((c) => c.module)).toEqual(['get-weather']);
  });
});

describe('MCP servers', () => {
  let root: string;
  beforeAll(async () => {
    root = await makeTempDir('build-mcp');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('discovers an in-memory SDK server and compiles input and output schemas', async () => {
    const config = resolveConfig({ capabilities: [], mcpServers: { 'math-server': { command: 'unused' } } }, { root, env: {} });
    const connectMcp = inMemoryConnector((server) => {
      server.registerTool(
        'get-sum',
        { description: 'Add', inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
        ({ a, b }) => ({
          content: [{ type: 'text', text: String(a + b) }],
          structuredContent: { sum: a + b },
        }),
      );
      server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
    });
    const result = await buildCapabilities({ config, sources: [files, createMcpSource({ connect: connectMcp })] });
    expect(result.errors).toEqual([]);
    const mcp = spec(result, 'mcp-math-server');
    expect(mcp.namespace).toBe('mathServer');
    expect(mcp.source).toEqual({ kind: 'mcp', server: 'math-server' });
    expect(mcp.version).toBe('2.0.0');
    expect(mcp.functions.map((f) => [f.name, f.toolName, f.resultKind])).toEqual([
      ['echo', 'echo', 'mcp-text'],
      ['getSum', 'get-sum', 'mcp-structured'],
    ]);
    expect(mcp.functions[1]?.outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } } });
    const usage = path.join(config.outDir, 'usage.ts');
    await writeFile(
      usage,
      `/// <reference path="./capabilities.d.ts" />
import { getSum, echo } from '@capabilities/mcp-math-server';
export async function main() { const r = await getSum({ a: 1, b: 2 }); const n: number = r.sum; const t: string = await echo({ text: 'x' }); return [n, t]; }
`,
    );
    expect(typeCheckFiles([usage])).toEqual([]);
  });

  it('discovers a real stdio server (the example stations server)', async () => {
    const config = resolveConfig(
      {
        capabilities: [],
        mcpServers: {
          stations: {
            command: process.execPath,
            args: ['--import', 'tsx', path.join(REPO, 'examples/mcp-server/stations-server.ts')],
            cwd: REPO,
            approveDestructive: true,
          },
        },
      },
      { root, env: {} },
    );
    const result = await buildCapabilities({ config, sources: [files, mcpSource] });
    expect(result.errors).toEqual([]);
    const stations = spec(result, 'mcp-stations');
    expect(stations.functions.map((f) => `${f.name}:${f.resultKind}:${f.requiresApproval ?? false}`)).toEqual([
      'listStations:mcp-text:false',
      'reportDelay:mcp-text:true',
      'stationInfo:mcp-structured:false',
    ]);
  });

  it('reports a server with a malformed tool list and still builds the other sources', async () => {
    const space = await makeSpace({
      mcpServers: { broken: { command: process.execPath, args: [path.join(REPO, 'test/fixtures/malformed-tools-server.mjs')], cwd: REPO } },
    });
    const result = await buildCapabilities({ config: space.config, sources: [files, mcpSource] });
    expect(result.errors.map((e) => e.source)).toEqual(['mcp:broken']);
    expect(result.errors[0]?.message).toMatch(/MCP server "broken"/);
    expect(result.manifest.capabilities.map((c) => c.module)).toEqual(['crm', 'get-weather', 'train-schedule']);
  });

  it('names every bad tool of a malformed tool list, in words', async () => {
    const space = await makeSpace({
      mcpServers: {
        broken: { command: process.execPath, args: [path.join(REPO, 'compiler/__fixtures__/malformed-tools-server.mjs')], cwd: REPO },
      },
    });
    const result = await buildCapabilities({ config: space.config, sources: [files, mcpSource] });
    const message = result.errors[0]?.message ?? '';
    expect(message).toMatch(/MCP server "broken" returned a malformed tool list/);
    expect(message).toMatch(/tool 1 "no-type": inputSchema must be an object schema with type "object"/);
    expect(message).toMatch(/tool 2 "string-schema": inputSchema must be an object schema/);
    expect(message).toMatch(/tool 3: has no name/);
    expect(message).not.toMatch(/"code":/); // not a validation library's dump
    expect(message).not.toMatch(/"fine"/);
  });

  it('fails a server whose tool schemas ajv cannot compile, naming each, and still builds the other sources', async () => {
    const space = await makeSpace({
      mcpServers: {
        odd: { command: process.execPath, args: [path.join(REPO, 'compiler/__fixtures__/uncompilable-schema-server.mjs')], cwd: REPO },
      },
    });
    const result = await buildCapabilities({ config: space.config, sources: [files, mcpSource] });
    expect(result.errors.map((e) => e.source)).toEqual(['mcp:odd']);
    const lines = result.errors[0]?.message.split('\n') ?? [];
    expect(lines[0]).toBe('MCP server "odd": 3 schemas cannot be compiled (this source is not built until they do):');
    expect(lines.slice(1)).toEqual([
      '  - tool "dangling-ref": inputSchema cannot be compiled: can\'t resolve reference #/$defs/path from id #',
      expect.stringMatching(/^ {2}- tool "bad-pattern": inputSchema cannot be compiled: Invalid regular expression/),
      expect.stringMatching(
        /^ {2}- tool "bad-output": outputSchema is not a valid JSON Schema \(draft-07\): at \/properties\/n\/type must be equal to one of the allowed values/,
      ),
    ]);
    expect(result.manifest.capabilities.map((c) => c.module)).toEqual(['crm', 'get-weather', 'train-schedule']);
  });

  it('gives up on a server that never answers tools/list after its timeoutMs, saying so', async () => {
    const space = await makeSpace({
      mcpServers: {
        silent: {
          command: process.execPath,
          args: [path.join(REPO, 'compiler/__fixtures__/silent-tools-server.mjs')],
          cwd: REPO,
          timeoutMs: 300,
        },
      },
    });
    const result = await buildCapabilities({ config: space.config, sources: [files, mcpSource] });
    expect(result.errors).toEqual([
      {
        source: 'mcp:silent',
        message: expect.stringMatching(/MCP server "silent": no answer to tools\/list within 300 ms.*raise timeoutMs/),
      },
    ]);
    expect(result.manifest.capabilities).toHaveLength(3);
  });

  it('reports a server that cannot start', async () => {
    const space = await makeSpace({ mcpServers: { ghost: { command: '/nonexistent/binary' } } });
    const result = await buildCapabilities({ config: space.config, sources: [files, mcpSource] });
    expect(result.errors).toEqual([{ source: 'mcp:ghost', message: expect.stringMatching(/ghost/) }]);
    expect(result.manifest.capabilities).toHaveLength(3);
  });
});

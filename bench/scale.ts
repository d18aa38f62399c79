// Scale (issue 27): a space of 1,000 and 10,000 generated functions (100 JSON tool files of up to 100
// functions each, realistic schemas from compile.ts), built and served. It reports the cold build, the
// catalog search (the ranking search_tools runs), serve's connect (initialize + tools/list) and first
// search, a direct call_tool, memory, and the tokens a client receives (js-tiktoken o200k_base) in both
// serve modes (the standard library's functions come on top). Run on request: `npm run bench -- scale` (it builds 11,000 functions).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { getEncoding } from 'js-tiktoken';
import { serveSpace, type ServeMode } from '../server/index.js';
import { createSpace, searchTools } from '../space/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { generateTools } from './compile.js';
import { median } from './median.js';

const SIZES = [1_000, 10_000];
const PER_FILE = 100;
const VERBS = ['list', 'get', 'create', 'update', 'delete', 'search', 'export', 'archive', 'approve', 'sync'];
const NOUNS = [
  'invoice',
  'customer',
  'ticket',
  'order',
  'shipment',
  'repository',
  'calendar',
  'message',
  'user',
  'report',
  'payment',
  'contract',
  'device',
  'license',
  'project',
];
const AREAS = ['billing', 'support', 'sales', 'logistics', 'engineering', 'identity', 'finance', 'legal', 'fleet', 'marketing'];
const QUERIES = [
  'create invoice',
  'list customers billing',
  'delete ticket support',
  'sync calendar',
  'export report finance',
  'approve payment',
  'search repository',
  'update shipment logistics',
  'archive contract legal',
  'get device fleet',
];

interface Row {
  size: number;
  buildMs: number;
  catalogBytes: number;
  searchMedianMs: number;
  heapAfterBuildMb: number;
  serve: Record<ServeMode, { connectMs: number; listTokens: number; firstSearchMs: number; searchTokens: number }>;
  firstCallMs: number;
  callMedianMs: number;
  rssMb: number;
}

async function writeSpace(root: string, size: number): Promise<void> {
  const tools = generateTools(size);
  await mkdir(path.join(root, 'tools'), { recursive: true });
  for (let file = 0; file * PER_FILE < size; file++) {
    const area = AREAS[file % AREAS.length] ?? 'misc';
    const functions = tools.slice(file * PER_FILE, (file + 1) * PER_FILE).map((tool, index) => {
      const n = file * PER_FILE + index;
      const verb = VERBS[n % VERBS.length] ?? 'get';
      const noun = NOUNS[Math.floor(n / VERBS.length) % NOUNS.length] ?? 'item';
      return {
        name: `${verb}_${noun}_${n}`,
        description: `${verb} ${noun} records in ${area} (operation ${n})`,
        parameters: tool.inputSchema,
        ...(tool.outputSchema ? { returns: tool.outputSchema } : {}),
      };
    });
    await writeFile(
      path.join(root, 'tools', `${area}-${file}.json`),
      JSON.stringify({
        name: `${area}-${file}`,
        description: `${area} API, part ${file}`,
        implementation: `./impl-${file}.mjs`,
        functions,
      }),
    );
    await writeFile(
      path.join(root, 'tools', `impl-${file}.mjs`),
      functions.map((fn) => `export const ${fn.name} = () => ({ ok: true });`).join('\n'),
    );
  }
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['tools/*.json'], sandbox: { workers: 1 } }));
}

function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

async function measure(size: number, count: (text: string) => number): Promise<Row> {
  const root = await makeTempDir(`scale-${size}`);
  try {
    await writeSpace(root, size);
    const space = await createSpace({ cwd: root });
    let started = performance.now();
    const build = await space.build();
    const buildMs = performance.now() - started;
    if (build.errors.length > 0 || build.functionCount < size)
      throw new Error(`build of ${size}: ${build.functionCount} functions, errors ${JSON.stringify(build.errors).slice(0, 500)}`);
    const catalog = await space.catalog();
    const catalogBytes = Buffer.byteLength(JSON.stringify(catalog));
    const searches: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const query of QUERIES) {
        started = performance.now();
        searchTools(catalog, query, { limit: 10 });
        searches.push(performance.now() - started);
      }
    }
    (globalThis as { gc?: () => void }).gc?.();
    const heapAfterBuildMb = process.memoryUsage().heapUsed / 2 ** 20;
    await space.close();

    const serve = {} as Row['serve'];
    let firstCallMs = 0;
    let callMedianMs = 0;
    for (const mode of ['code', 'invoke'] as const) {
      const running = await serveSpace({ cwd: root, http: { port: 0 }, mode });
      try {
        started = performance.now();
        const client = new Client({ name: 'bench', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(running.url ?? '')));
        const list = await client.listTools();
        const connectMs = performance.now() - started;
        started = performance.now();
        const found = await client.callTool({
          name: 'search_tools',
          arguments: { query: 'create invoice billing', detail_level: 'summary', limit: 10 },
        });
        const firstSearchMs = performance.now() - started;
        serve[mode] = { connectMs, listTokens: count(JSON.stringify(list)), firstSearchMs, searchTokens: count(textOf(found)) };
        if (mode === 'invoke') {
          const id = (JSON.parse(textOf(found)) as { matches: { id: string; inputSchema: unknown }[] }).matches[0]?.id ?? '';
          started = performance.now();
          const first = await client.callTool({ name: 'call_tool', arguments: { name: id, arguments: {} } });
          firstCallMs = performance.now() - started;
          if (first.isError && !textOf(first).startsWith('INVALID_ARGUMENTS')) throw new Error(`call_tool ${id}: ${textOf(first)}`);
          const calls: number[] = [];
          for (let index = 0; index < 20; index++) {
            started = performance.now();
            await client.callTool({ name: 'call_tool', arguments: { name: id, arguments: {} } });
            calls.push(performance.now() - started);
          }
          callMedianMs = median(calls);
        }
        await client.close();
      } finally {
        await running.close();
      }
    }
    return {
      size,
      buildMs,
      catalogBytes,
      searchMedianMs: median(searches),
      heapAfterBuildMb,
      serve,
      firstCallMs,
      callMedianMs,
      rssMb: process.memoryUsage().rss / 2 ** 20,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export async function run(): Promise<string> {
  const encoding = getEncoding('o200k_base');
  const count = (text: string) => encoding.encode(text).length;
  const rows: Row[] = [];
  for (const size of SIZES) {
    console.error(`bench: scale ${size} functions …`);
    const row = await measure(size, count);
    rows.push(row);
    console.error(`bench: scale ${size}: ${JSON.stringify(row)}`);
  }
  const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;
  const first = rows[0];
  const last = rows.at(-1);
  const ratio = (pick: (row: Row) => number) => (first && last ? (pick(last) / pick(first)).toFixed(1) : '-');
  const lines = [
    '## Scale: 1,000 and 10,000 functions (issue 27)',
    '',
    `Generated JSON tool files of ${PER_FILE} functions each (compile.ts's schemas); serve over Streamable HTTP with the SDK v1 client; tokens with js-tiktoken o200k_base. Load average at the end: ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' / ')}.`,
    '',
    '| functions | cold build | catalog.json | search (catalog, median) | heap after build | code mode: connect / tools/list tokens / first search / its tokens | invoke mode: connect / tools/list tokens / first search / its tokens | first call_tool | call_tool median | rss |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) =>
      [
        row.size.toLocaleString('en-US'),
        ms(row.buildMs),
        `${(row.catalogBytes / 2 ** 20).toFixed(1)} MiB`,
        ms(row.searchMedianMs),
        `${row.heapAfterBuildMb.toFixed(0)} MiB`,
        `${ms(row.serve.code.connectMs)} / ${row.serve.code.listTokens} / ${ms(row.serve.code.firstSearchMs)} / ${row.serve.code.searchTokens}`,
        `${ms(row.serve.invoke.connectMs)} / ${row.serve.invoke.listTokens} / ${ms(row.serve.invoke.firstSearchMs)} / ${row.serve.invoke.searchTokens}`,
        ms(row.firstCallMs),
        ms(row.callMedianMs),
        `${row.rssMb.toFixed(0)} MiB`,
      ]
        .join(' | ')
        .replace(/^/, '| ')
        .replace(/$/, ' |'),
    ),
    '',
    `10× the functions: build ×${ratio((row) => row.buildMs)}, search ×${ratio((row) => row.searchMedianMs)}, tools/list tokens ×${ratio((row) => row.serve.invoke.listTokens)}, search answer tokens ×${ratio((row) => row.serve.invoke.searchTokens)}.`,
    '',
  ];
  return lines.join('\n');
}

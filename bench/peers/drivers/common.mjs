// The driver side of the peers benchmark, shared by every system's driver. A driver is a child process
// that sets its system up once, then reads commands as JSON lines on stdin — a workload's program text,
// how many runs, how many at once — runs them and answers one JSON line on stdout with the time of
// each run and a digest of each result. Anything the system itself prints goes to stderr.
/* global process, performance, console, setTimeout */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { bigPayload, chunkPayload, digest } from '../data.mjs';

const rssMb = () => process.memoryUsage().rss / 1024 / 1024;

/** Imports a package's ESM entry from an `npm install --prefix <prefix>` folder (the peers' cache). */
export async function importFrom(prefix, name, subpath = '.') {
  const dir = path.join(prefix, 'node_modules', ...name.split('/'));
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  let entry = manifest.exports?.[subpath] ?? (subpath === '.' ? manifest.exports : undefined);
  if (entry && typeof entry === 'object') entry = entry.import ?? entry.default;
  if (typeof entry !== 'string') entry = subpath === '.' ? (manifest.module ?? manifest.main ?? 'index.js') : subpath;
  return import(pathToFileURL(path.join(dir, entry)).href);
}

/**
 * Runs a driver: `load()` imports the system (its RSS is measured around it), `setup(modules, options)`
 * returns `{ run(body, uses, { check }) → value, close() }` and optionally `probe({ name, … }) → value`
 * (a measurement that is no program, run instead when a command carries `probe`). Options arrive as JSON in argv[2].
 */
export async function serveDriver({ load, setup }) {
  const write = process.stdout.write.bind(process.stdout);
  const send = (message) => write(JSON.stringify(message) + '\n');
  // What the systems print (UTCP logs every call) is dropped unless BENCH_PEERS_VERBOSE is set; stdout
  // carries only this protocol.
  const verbose = Boolean(process.env.BENCH_PEERS_VERBOSE);
  const toStderr = console.error.bind(console);
  for (const level of ['log', 'info', 'debug', 'warn', 'error', 'trace']) console[level] = verbose ? toStderr : () => {};
  const options = JSON.parse(process.argv[2] ?? '{}');

  const baseRssMb = rssMb();
  const modules = await load(options);
  const importRssMb = rssMb();
  const system = await setup(modules, options);
  send({ type: 'ready', node: process.version, baseRssMb, importRssMb, info: system.info ?? '' });

  let runNumber = 0;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const command = JSON.parse(line);
    if (command.type === 'exit') break;
    const { id, body, uses = [], runs = 1, warmup = 0, concurrency = 1, check = false, unique = false, probe, gapMs = 0 } = command;
    try {
      // `unique`: a text no run of this process had (a trailing comment), so nothing cached can answer it.
      const text = () => (unique ? `${body}\n// run ${++runNumber}` : body);
      const once = probe === undefined ? () => system.run(text(), uses, { check }) : () => system.probe(probe);
      for (let index = 0; index < warmup; index++) await once();
      const times = [];
      const results = [];
      for (let index = 0; index < runs; index++) {
        // `gapMs`: the system idle that long before each run (not timed), as between an agent's turns.
        if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
        const started = performance.now();
        const values = concurrency === 1 ? [await once()] : await Promise.all(Array.from({ length: concurrency }, once));
        times.push(performance.now() - started);
        results.push(...values.map(digest));
      }
      send({ type: 'result', id, times, results, rssMb: rssMb() });
    } catch (error) {
      send({ type: 'result', id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  }
  await system.close?.();
  process.exit(0);
}

/** `const a = f1, b = f2;` – binds the workload's tool names (`uses`) to a system's own functions. */
export function prelude(uses, nameOf) {
  return uses.length === 0 ? '' : `const ${uses.map((name) => `${name} = ${nameOf(name)}`).join(', ')};\n`;
}

/**
 * The probe `json`: the JSON work every system does for a W5 call, and nothing else — JSON.stringify
 * the call's result on the host (W5b: building its 50 KB chunk too; W5a: the 5.7 MB value, built once
 * per process), JSON.parse it inside an isolate (a fresh one per probe, 128 MB as every system uses) —
 * `count` times, with the isolated-vm `ivm` of the driver's Node. With `back` (W5a, whose program returns
 * the value), also the way out: JSON.stringify it in the isolate, JSON.parse that text on the host.
 * Returns the rows parsed. It measures what that Node's V8 makes of the same work.
 */
export function jsonWork(ivm, { count, payload, back = false }) {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  try {
    const context = isolate.createContextSync();
    const inside = back
      ? '(json) => JSON.stringify(JSON.parse(json))'
      : '(json) => { const value = JSON.parse(json); return (value.items ?? value.rows).length; }';
    const parse = context.evalSync(inside, { reference: true });
    let rows = 0;
    for (let i = 0; i < count; i++) {
      const answer = parse.applySync(undefined, [JSON.stringify(payload === 'big' ? bigPayload() : chunkPayload(i))]);
      if (!back) rows += answer;
      else {
        const value = JSON.parse(answer);
        rows += (value.items ?? value.rows).length;
      }
    }
    return rows;
  } finally {
    isolate.dispose();
  }
}

/**
 * The W4 tools through an MCP SDK Client of the bench's echo server, when the options name one: `mcpEcho`
 * and `mcpWork` as host functions (arguments in, the SDK's result out), and `close()` for the client.
 */
export async function mcpTools(options, clientName) {
  if (!options.mcpServer) return { tools: {}, close: async () => {} };
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: options.mcpNode, args: [options.mcpServer], stderr: 'inherit' }));
  return {
    tools: {
      mcpEcho: (args) => client.callTool({ name: 'echo', arguments: args }),
      mcpWork: (args) => client.callTool({ name: 'work', arguments: args }),
    },
    close: () => client.close(),
  };
}

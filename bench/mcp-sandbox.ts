// The whole path: a call from sandboxed TypeScript to a stdio MCP server (sandbox → IPC → bridge →
// MCP client pool → server) versus the same calls made directly with the SDK `Client`, in the same run.
// Target (issue 4): at most 1.2× the direct call.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { connectMcpServer } from '../config/mcp-connect.js';
import { resolveConfig } from '../config/index.js';
import { createSpace, type Space } from '../space/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';

const CALLS = 200;
const BATCH = 50;
const ROUNDS = 15;
const fixture = fileURLToPath(new URL('../bridge/mcp/__fixtures__/fixture-server.mjs', import.meta.url));

const sequential = `import { echo } from '@capabilities/mcp-fixture';\nfor (let i = 0; i < ${CALLS}; i++) await echo({ text: 'hello ' + i });\nexport default ${CALLS};`;
const parallel = `import { echo } from '@capabilities/mcp-fixture';\nconst all = await Promise.all(Array.from({ length: ${BATCH} }, (_, i) => echo({ text: 'hello ' + i })));\nexport default all.length;`;
const empty = `export default 0;`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function runOk(space: Space, code: string): Promise<void> {
  const result = await space.run(code, { check: false });
  if (!result.success) throw new Error(`bench program failed: ${result.error?.message}`);
}

export async function run(): Promise<string> {
  const root = await makeTempDir('bench-mcp-sandbox');
  const server = { command: process.execPath, args: [fixture] };
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], mcpServers: { fixture: server } }));
  const config = resolveConfig({ capabilities: [], mcpServers: { fixture: server } }, { root, env: {} });
  const spaces = { worker: await createSpace({ config, isolation: 'worker' }), 'in-process': await createSpace({ config, isolation: 'in-process' }) };
  const direct = await connectMcpServer('direct', server);
  try {
    await spaces.worker.build();
    const echo = (text: string) => direct.client.callTool({ name: 'echo', arguments: { text } });
    // Warm up every path: server started, isolates and JIT warm.
    for (const space of Object.values(spaces)) for (let i = 0; i < 3; i++) await runOk(space, sequential);
    for (let i = 0; i < 3 * CALLS; i++) await echo(`warm ${i}`);

    const samples: Record<string, number[]> = {};
    const add = (key: string, value: number) => (samples[key] ??= []).push(value);
    for (let round = 0; round < ROUNDS; round++) {
      add('direct-seq', await timed(async () => { for (let i = 0; i < CALLS; i++) await echo(`hello ${i}`); }));
      add('direct-par', await timed(() => Promise.all(Array.from({ length: BATCH }, (_, i) => echo(`hello ${i}`)))));
      for (const [mode, space] of Object.entries(spaces)) {
        add(`${mode}-seq`, await timed(() => runOk(space, sequential)));
        add(`${mode}-par`, await timed(() => runOk(space, parallel)));
        add(`${mode}-empty`, await timed(() => runOk(space, empty)));
      }
    }
    const m = (key: string) => median(samples[key] ?? []);
    const us = (ms: number, calls: number) => ((ms * 1000) / calls).toFixed(0);
    const lines = [
      '## MCP: sandboxed calls vs direct SDK calls (stdio server, `echo`)',
      '',
      `Median of ${ROUNDS} rounds. "per call" divides the whole run by the calls; "marginal" first subtracts the run's fixed cost (an empty program: fresh isolate, module load, result).`,
      '',
      '| path | sequential: µs per call | ratio | marginal µs per call | marginal ratio | parallel ×50: µs per call | ratio |',
      '|---|---:|---:|---:|---:|---:|---:|',
      `| SDK \`Client.callTool\` directly (baseline) | ${us(m('direct-seq'), CALLS)} | 1.00 | ${us(m('direct-seq'), CALLS)} | 1.00 | ${us(m('direct-par'), BATCH)} | 1.00 |`,
    ];
    for (const mode of Object.keys(spaces)) {
      const seq = m(`${mode}-seq`);
      const marginal = seq - m(`${mode}-empty`);
      const par = m(`${mode}-par`);
      lines.push(
        `| sandbox (${mode}) → bridge → MCP pool | ${us(seq, CALLS)} | ${(seq / m('direct-seq')).toFixed(2)} | ${us(marginal, CALLS)} | ${(marginal / m('direct-seq')).toFixed(2)} | ${us(par, BATCH)} | ${(par / m('direct-par')).toFixed(2)} |`,
      );
    }
    lines.push('', `Fixed cost of a run (empty program): worker ${m('worker-empty').toFixed(1)} ms, in-process ${m('in-process-empty').toFixed(1)} ms.`, '');
    return lines.join('\n');
  } finally {
    await direct.close();
    await Promise.all(Object.values(spaces).map((space) => space.close()));
    await rm(root, { recursive: true, force: true });
  }
}

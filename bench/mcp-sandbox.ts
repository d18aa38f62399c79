// The whole path: a call from sandboxed TypeScript to a stdio MCP server (sandbox → IPC → bridge →
// MCP client pool → server) versus the same calls made directly with the SDK `Client`, in the same run.
// Target (issue 4): at most 1.2× the direct call.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { connectMcpServer } from '../sources/mcp/index.js';
import { resolveConfig } from '../config/index.js';
import { createSpace, type Space } from '../space/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { median } from './median.js';

const CALLS = 200;
const BATCH = 50;
const ROUNDS = 15;
const fixture = fileURLToPath(new URL('../sources/mcp/__fixtures__/fixture-server.mjs', import.meta.url));

const sequential = `import { echo } from '@capabilities/mcp-fixture';\nfor (let i = 0; i < ${CALLS}; i++) await echo({ text: 'hello ' + i });\nexport default ${CALLS};`;
const parallel = `import { echo } from '@capabilities/mcp-fixture';\nconst all = await Promise.all(Array.from({ length: ${BATCH} }, (_, i) => echo({ text: 'hello ' + i })));\nexport default all.length;`;
const empty = `export default 0;`;
// A tool that takes 2 ms, like a real server doing real work: what the ratio looks like then.
const SLOW_CALLS = 20;
const slow = `import { sleep } from '@capabilities/mcp-fixture';\nfor (let i = 0; i < ${SLOW_CALLS}; i++) await sleep({ ms: 2 });\nexport default ${SLOW_CALLS};`;

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
  const spaces = {
    worker: await createSpace({ config, isolation: 'worker' }),
    'in-process': await createSpace({ config, isolation: 'in-process' }),
  };
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
      add(
        'direct-seq',
        await timed(async () => {
          for (let i = 0; i < CALLS; i++) await echo(`hello ${i}`);
        }),
      );
      add('direct-par', await timed(() => Promise.all(Array.from({ length: BATCH }, (_, i) => echo(`hello ${i}`)))));
      add(
        'direct-slow',
        await timed(async () => {
          for (let i = 0; i < SLOW_CALLS; i++) await direct.client.callTool({ name: 'sleep', arguments: { ms: 2 } });
        }),
      );
      for (const [mode, space] of Object.entries(spaces)) {
        add(`${mode}-seq`, await timed(() => runOk(space, sequential)));
        add(`${mode}-par`, await timed(() => runOk(space, parallel)));
        add(`${mode}-empty`, await timed(() => runOk(space, empty)));
        add(`${mode}-slow`, await timed(() => runOk(space, slow)));
      }
    }
    const m = (key: string) => median(samples[key] ?? []);
    const us = (ms: number, calls: number) => ((ms * 1000) / calls).toFixed(0);
    const lines = [
      '## MCP: sandboxed calls vs direct SDK calls (stdio server, `echo`)',
      '',
      `Median of ${ROUNDS} rounds. "Whole run" divides the run's time by its calls; "marginal" first subtracts the run's fixed cost (an empty program: fresh isolate, module load, result), i.e. what one more call costs. The echo tool answers at once, so its rows show the pure crossing cost; the 2 ms tool shows a tool doing work.`,
      '',
      `| path | ${CALLS} sequential echo: whole run µs/call (ratio) | marginal µs/call (ratio) | ${BATCH} parallel echo: marginal µs/call (ratio) | ${SLOW_CALLS} sequential 2 ms calls: whole run µs/call (ratio) |`,
      '|---|---:|---:|---:|---:|',
      `| SDK \`Client.callTool\` directly (baseline) | ${us(m('direct-seq'), CALLS)} (1.00) | ${us(m('direct-seq'), CALLS)} (1.00) | ${us(m('direct-par'), BATCH)} (1.00) | ${us(m('direct-slow'), SLOW_CALLS)} (1.00) |`,
    ];
    for (const mode of Object.keys(spaces)) {
      const fixed = m(`${mode}-empty`);
      const seq = m(`${mode}-seq`);
      const par = m(`${mode}-par`) - fixed;
      const slowRun = m(`${mode}-slow`);
      const ratio = (value: number, base: number) => (value / base).toFixed(2);
      lines.push(
        `| sandbox (${mode}) → bridge → MCP pool | ${us(seq, CALLS)} (${ratio(seq, m('direct-seq'))}) | ${us(seq - fixed, CALLS)} (${ratio(seq - fixed, m('direct-seq'))}) | ${us(par, BATCH)} (${ratio(par, m('direct-par'))}) | ${us(slowRun, SLOW_CALLS)} (${ratio(slowRun, m('direct-slow'))}) |`,
      );
    }
    lines.push(
      '',
      `Fixed cost of a run (empty program): worker ${m('worker-empty').toFixed(1)} ms, in-process ${m('in-process-empty').toFixed(1)} ms.`,
      '',
    );
    return lines.join('\n');
  } finally {
    await direct.close();
    await Promise.all(Object.values(spaces).map((space) => space.close()));
    await rm(root, { recursive: true, force: true });
  }
}

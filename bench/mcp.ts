/**
 * MCP backend overhead: the same `echo` call to one stdio MCP server (the test fixture), made N times
 * through `createMcpBackend().call()` and directly with the SDK `Client.callTool` on a separate
 * connection to the same server script, in the same run. Target: the backend within 1.2× of direct.
 */
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/client';
import type { StdioServerConfig } from '../config/schema.js';
import type { CapabilitySpec, FunctionSpec, JsonSchema } from '../core/index.js';
import type { BackendCall } from '../core/index.js';
import { connectMcpServer, createMcpBackend, listAllTools } from '../sources/mcp/index.js';
import type { McpBackend } from '../sources/mcp/index.js';
import { median } from './median.js';

/** Calls per measured block; contenders alternate block by block so machine noise hits both alike. */
const SEQUENTIAL_BLOCK = 25;
const SEQUENTIAL_BLOCKS = 120;
const BATCH_SIZE = 50;
const CONCURRENT_BLOCKS = 90;

const fixture = fileURLToPath(new URL('../sources/mcp/__fixtures__/fixture-server.mjs', import.meta.url));
const config: StdioServerConfig = { command: process.execPath, args: [fixture] };

interface Contender {
  label: string;
  echo: (text: string) => Promise<unknown>;
}

/** µs per call of one block of awaited calls. */
async function sequentialBlock(contender: Contender): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < SEQUENTIAL_BLOCK; index += 1) await contender.echo(`hello ${index}`);
  return ((performance.now() - started) * 1000) / SEQUENTIAL_BLOCK;
}

/** µs per call of one `Promise.all` of concurrent calls. */
async function concurrentBlock(contender: Contender): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: BATCH_SIZE }, (_, index) => contender.echo(`hello ${index}`)));
  return ((performance.now() - started) * 1000) / BATCH_SIZE;
}

/** Median µs/call of each contender over `blocks` rounds; the order rotates every round. */
async function measure(
  contenders: readonly Contender[],
  block: (contender: Contender) => Promise<number>,
  blocks: number,
): Promise<number[]> {
  const samples: number[][] = contenders.map(() => []);
  for (let round = 0; round < blocks; round += 1) {
    for (let step = 0; step < contenders.length; step += 1) {
      const index = (round + step) % contenders.length;
      const contender = contenders[index];
      if (contender !== undefined) samples[index]?.push(await block(contender));
    }
  }
  return samples.map(median);
}

/** One run's context, shared by its calls as the bridge shares it. */
const context = { runId: 'bench', signal: new AbortController().signal };

function echoCall(capability: CapabilitySpec, spec: FunctionSpec, text: string): BackendCall {
  return { capability, function: spec, args: { text }, resultMode: 'value', callId: text, context };
}

export async function run(): Promise<string> {
  // Each contender has its own server process, so each process sees the same traffic pattern.
  const [direct, directWithOptions] = await Promise.all([connectMcpServer('fixture', config), connectMcpServer('fixture', config)]);
  const client: Client = direct.client;
  const tools = await listAllTools(client);
  const tool = tools.find((candidate) => candidate.name === 'echo');
  if (tool === undefined) throw new Error('the fixture server has no echo tool');
  const spec: FunctionSpec = { name: 'echo', toolName: 'echo', inputSchema: tool.inputSchema as JsonSchema, resultKind: 'mcp-text' };
  const capability: CapabilitySpec = {
    module: 'mcp-fixture',
    namespace: 'mcpFixture',
    source: { kind: 'mcp', server: 'fixture' },
    config: {},
    functions: [spec],
  };
  const backend: McpBackend = createMcpBackend({ servers: { 'mcp-fixture': { name: 'fixture', config } } });
  try {
    const viaSdk: Contender = { label: 'SDK Client.callTool', echo: (text) => client.callTool({ name: 'echo', arguments: { text } }) };
    // The SDK options every backend call uses (cancellation signal, timeouts, progress token): shows
    // how much of the difference is the SDK doing more, and how much is the backend's own code.
    const viaSdkWithOptions: Contender = {
      label: 'SDK Client.callTool with the backend options',
      echo: (text) =>
        directWithOptions.client.callTool(
          { name: 'echo', arguments: { text } },
          {
            signal: new AbortController().signal,
            timeout: 60_000,
            resetTimeoutOnProgress: true,
            maxTotalTimeout: 600_000,
            onprogress: () => undefined,
          },
        ),
    };
    const viaBackend: Contender = { label: 'createMcpBackend().call', echo: (text) => backend.call(echoCall(capability, spec, text)) };
    const contenders = [viaSdk, viaSdkWithOptions, viaBackend];
    // Warm up every path (process start, JIT) before measuring.
    for (let index = 0; index < 300; index += 1) {
      for (const contender of contenders) await contender.echo('warm');
    }
    const sequential = await measure(contenders, sequentialBlock, SEQUENTIAL_BLOCKS);
    const concurrent = await measure(contenders, concurrentBlock, CONCURRENT_BLOCKS);
    const row = (label: string, [sdk = Number.NaN, sdkOptions = Number.NaN, ours = Number.NaN]: number[]) =>
      `| ${label} | ${sdk.toFixed(1)} | ${sdkOptions.toFixed(1)} (${(sdkOptions / sdk).toFixed(2)}×) | ${ours.toFixed(1)} | **${(ours / sdk).toFixed(2)}×** |`;
    return [
      '## MCP backend vs direct SDK call (stdio)',
      '',
      'The fixture stdio MCP server (`echo` tool); each contender has its own connection (and server process) to the same script.',
      'Median µs per call over blocks that rotate between the contenders. Target: backend ≤ 1.2× the plain SDK call.',
      '',
      '| shape | SDK callTool µs | SDK callTool + backend options µs | MCP backend µs | backend / SDK |',
      '|---|---:|---:|---:|---:|',
      row(`sequential (${SEQUENTIAL_BLOCKS} blocks of ${SEQUENTIAL_BLOCK} awaited calls)`, sequential),
      row(`concurrent (${CONCURRENT_BLOCKS} × Promise.all of ${BATCH_SIZE})`, concurrent),
      '',
    ].join('\n');
  } finally {
    await backend.close();
    await direct.close();
    await directWithOptions.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}

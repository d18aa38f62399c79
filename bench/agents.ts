/**
 * What serving an agent costs on top of the planner: one agent tool call answered by a headless
 * session (scripted model replying `finish` at once), made N times directly with `executeTask`
 * (baseline), through `AgentRunner.callTool` (template, instructions, model mapping), through the
 * agent's MCP server (SDK client over Streamable HTTP) and through its A2A server (SDK client,
 * blocking send). Contenders alternate block by block so machine noise hits all alike.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientFactory } from '@a2a-js/sdk/client';
import { createAgentMcpServer, createAgentRunner, createAgentSpace, loadAgent, serveA2A } from '../agents/index.js';
import { serveMcp } from '../server/index.js';
import { userTextMessage } from '../agents/a2a/a2a-message.js';
import { executeTask } from '../planner/index.js';
import { callReply, startScriptedModelServer } from '../test/support/scripted-model-server.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { median } from './median.js';

const BLOCK = 10;
const BLOCKS = 12;

export async function run(): Promise<string> {
  const model = await startScriptedModelServer(() => callReply('finish', { summary: 'done' }));
  const dir = await makeTempDir('bench-agent');
  await writeFile(
    path.join(dir, 'tsagent.json'),
    JSON.stringify({
      metadata: {
        name: 'Bench Agent',
        version: '1.0.0',
        tools: [
          {
            name: 'ask',
            description: 'Ask',
            parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
            prompt: 'Answer {q}',
          },
        ],
      },
      settings: { mostRecentModel: 'openai:scripted-model' },
      providers: { openai: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: model.baseURL } },
    }),
  );
  const agent = await loadAgent(dir);
  const runner = createAgentRunner(agent, { outDir: path.join(dir, 'out') });
  const baseline = await createAgentSpace(agent, { outDir: path.join(dir, 'baseline-out') });
  await baseline.space.build();
  const mcp = await serveMcp(() => createAgentMcpServer(runner), { http: { port: 0 } });
  const mcpClient = new Client({ name: 'bench', version: '1.0.0' });
  await mcpClient.connect(new StreamableHTTPClientTransport(new URL(mcp.url ?? '')));
  const a2a = await serveA2A([runner], { port: 0 });
  const a2aClient = await new ClientFactory().createFromUrl(a2a.agents[0]?.url ?? '');

  const contenders: { label: string; call: () => Promise<unknown> }[] = [
    {
      label: 'executeTask (baseline)',
      call: () =>
        executeTask('Answer 42', {
          space: baseline.space,
          model: { baseURL: model.baseURL, model: 'scripted-model', apiKey: 'k' },
          tools: { allow: baseline.allow },
        }),
    },
    { label: 'AgentRunner.callTool', call: () => runner.callTool('ask', { q: '42' }) },
    { label: 'MCP tools/call (HTTP)', call: () => mcpClient.callTool({ name: 'ask', arguments: { q: '42' } }) },
    {
      label: 'A2A message/send (blocking)',
      call: () => a2aClient.sendMessage({ tenant: '', message: userTextMessage('Answer 42'), configuration: undefined, metadata: {} }),
    },
  ];
  const samples = new Map<string, number[]>(contenders.map((c) => [c.label, []]));
  try {
    for (const contender of contenders) await contender.call(); // warm up: builds, connections
    for (let block = 0; block < BLOCKS; block++) {
      for (const contender of contenders) {
        const started = performance.now();
        for (let i = 0; i < BLOCK; i++) await contender.call();
        samples.get(contender.label)?.push((performance.now() - started) / BLOCK);
      }
    }
  } finally {
    await mcpClient.close();
    await mcp.close();
    await a2a.close();
    await runner.close();
    await baseline.space.close();
    await model.close();
  }
  const medians = contenders.map((c) => ({ label: c.label, ms: median(samples.get(c.label) ?? []) }));
  const base = medians[0]?.ms ?? 1;
  const rows = medians.map((m) => `| ${m.label} | ${m.ms.toFixed(2)} | ${(m.ms / base).toFixed(2)}× |`);
  return [
    '## Agents: the cost of serving an agent tool call',
    '',
    `One call answered by a headless session whose (scripted, local HTTP) model finishes at once; median of ${BLOCKS} blocks of ${BLOCK} sequential calls.`,
    '',
    '| path | ms per call | vs executeTask |',
    '|---|---:|---:|',
    ...rows,
  ].join('\n');
}

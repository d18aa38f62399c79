// Tools-mode agents end to end: served over MCP (SDK client, stdio CLI, MCP Inspector CLI), called from
// sandboxed code as @capabilities/agent-<name>, served over A2A (SDK client), and orchestrated with
// list_agents / execute_agent / get_agent_memory across a restart. Every model reply comes from the
// scripted OpenAI-compatible server over real HTTP.
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stationGuideModel } from '../../agents/__fixtures__/station-guide-model.js';
import {
  createAgentRunner,
  loadAgentCapabilities,
  loadAgent,
  serveA2A,
  serveAgent,
  serveAgents,
  type AgentRunner,
} from '../../agents/index.js';
import { createBridge, loadBuiltCapabilities } from '../../bridge/index.js';
import { buildCapabilities } from '../../compiler/index.js';
import type { BridgeEvent } from '../../core/index.js';
import { createSandbox } from '../../runtime/index.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { makeTempDir } from '../support/temp-dir.js';

const REPO = new URL('../..', import.meta.url).pathname;
const GUIDE = path.join(REPO, 'agents/__fixtures__/station-guide');
const BIN = path.join(REPO, 'bin/agent-spaces.js');

let model: ScriptedModelServer;
let env: Record<string, string>;

beforeAll(async () => {
  model = await startScriptedModelServer(stationGuideModel, { apiKey: 'test-key' });
  env = { AGENT_TEST_MODEL_URL: model.baseURL, AGENT_TEST_MODEL_KEY: 'test-key' };
});
afterAll(async () => {
  await model?.close();
});

const outDir = async (prefix: string) => path.join(await makeTempDir(prefix), 'out');
const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('agent serve (MCP)', () => {
  let client: Client;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const running = await serveAgent(GUIDE, { http: { port: 0 }, env, outDir: await outDir('agent-mcp') });
    close = running.close;
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url ?? '')));
  });
  afterAll(async () => {
    await client?.close();
    await close?.();
  });

  it('takes serverInfo and instructions from the metadata and lists the tools with their schemas', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'Station Guide', version: '2.1.0' });
    expect(client.getInstructions()).toBe("Answers travellers' questions about stations of the city rail network.");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['describe_station', 'station_facts']);
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } });
    expect(tools[1]?.outputSchema).toMatchObject({ type: 'object', required: ['station', 'accessible'] });
  });

  it('answers a call with a headless session, sending progress while it runs', async () => {
    const progress: string[] = [];
    const result = (await client.callTool({ name: 'describe_station', arguments: { name: 'Harbor' } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Harbor: step-free');
    expect(progress).toContain('task-start');
    expect(progress).toContain('task-finish');
  });

  it('returns structuredContent for a tool with an output schema', async () => {
    const result = (await client.callTool({ name: 'station_facts', arguments: { station: 'Museum' } })) as CallToolResult;
    expect(result.structuredContent).toEqual({ station: 'Museum', accessible: false });
    expect(JSON.parse(textOf(result))).toEqual({ station: 'Museum', accessible: false });
  });

  it('reports bad arguments and failed sessions as isError results', async () => {
    const bad = (await client.callTool({ name: 'describe_station', arguments: { needs: 'lifts' } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('invalid arguments for "describe_station"');
    const failed = (await client.callTool({ name: 'describe_station', arguments: { name: 'Atlantis' } })) as CallToolResult;
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain('agent "Station Guide"');
    expect(textOf(failed)).not.toContain('test-key');
  });
});

describe('agents as @capabilities/agent-<name> and @capabilities/agents', () => {
  let root: string;
  let agents: Awaited<ReturnType<typeof loadAgentCapabilities>>;
  let bridge: ReturnType<typeof createBridge>;
  let sandbox: ReturnType<typeof createSandbox>;
  const events: BridgeEvent[] = [];
  beforeAll(async () => {
    root = await makeTempDir('agent-capability');
    agents = await loadAgentCapabilities(
      [path.relative(root, GUIDE), path.relative(root, path.join(REPO, 'agents/__fixtures__/seed-agent'))],
      {
        root,
        env,
        orchestration: { sessionsDir: path.join(root, 'sessions') },
      },
    );
    const config = {
      root,
      capabilities: [],
      mcpServers: {},
      outDir: path.join(root, 'out'),
      sandbox: {},
      std: {},
      model: {},
      agents: [],
      agentSessions: path.join(root, 'sessions'),
    };
    const build = await buildCapabilities({ config, sources: [agents.source] });
    expect(build.errors).toEqual([]);
    bridge = createBridge({
      capabilities: await loadBuiltCapabilities(config.outDir),
      backends: agents.backends,
      onEvent: (event) => events.push(event),
    });
    sandbox = createSandbox({ outDir: config.outDir, isolation: 'in-process' });
  });
  afterAll(async () => {
    await sandbox?.close();
    await bridge?.close();
    await agents?.close();
  });

  it('compiles one typed function per agent tool, returning the answer text', async () => {
    expect(agents.tools.map((tool) => tool.module)).toEqual(['agent-station-guide', 'agent-xxxx', 'agents']);
    expect(agents.problems).toEqual([]);
    const declarations = await readFile(path.join(root, 'out/capabilities/agent-station-guide/index.d.ts'), 'utf8');
    expect(declarations).toContain('export type DescribeStationResult = string;');
    expect(declarations).toContain(
      'export declare function describeStation(params: DescribeStationParams): Promise<DescribeStationResult>;',
    );
  });

  it('calls the agent from sandboxed code, several calls in parallel', async () => {
    events.length = 0;
    const result = await sandbox.run(
      `import { describeStation } from '@capabilities/agent-station-guide';
const names = ['Harbor', 'Museum', 'Central'];
const answers: string[] = await Promise.all(names.map((name) => describeStation({ name })));
export default answers;`,
      { onCall: bridge.handle, check: true, limits: { timeoutMs: 60_000 } },
    );
    expect(result.error).toBeUndefined();
    expect(result.result).toEqual(['Harbor: step-free', 'Museum: not step-free', 'Central: step-free']);
    // All three sessions were under way before the first one finished.
    const order = events.filter((e) => e.type === 'tool-call-start' || e.type === 'tool-call-end').map((e) => e.type);
    expect(order.slice(0, 3)).toEqual(['tool-call-start', 'tool-call-start', 'tool-call-start']);
  });

  it('orchestrates agents from code with @capabilities/agents', async () => {
    const result = await sandbox.run(
      `import { listAgents, executeAgent } from '@capabilities/agents';
const listed = await listAgents({});
const [a, b] = await Promise.all([
  executeAgent({ agent_name: 'Station Guide', prompt: 'Tell a traveller about Airport station' }),
  executeAgent({ agent_name: 'nobody', prompt: 'hi' }),
]);
export default { names: listed.agents.map((agent) => agent.name), a, b };`,
      { onCall: bridge.handle, check: true, limits: { timeoutMs: 60_000 } },
    );
    expect(result.error).toBeUndefined();
    expect(result.result).toMatchObject({
      names: ['Station Guide', 'xxxx'],
      a: { status: 'success', content: 'Airport: step-free' },
      b: { status: 'error', message: "Agent 'nobody' not found." },
    });
  });
});

function userMessage(parts: Message['parts']): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}
const textPart = (value: string): Message['parts'][number] => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

describe('agent serve --a2a', () => {
  let runners: AgentRunner[];
  let server: Awaited<ReturnType<typeof serveA2A>>;
  beforeAll(async () => {
    const waiter = await makeTempDir('a2a-waiter');
    await writeFile(
      path.join(waiter, 'tsagent.json'),
      JSON.stringify({
        metadata: { name: 'Waiter', version: '0.1.0', skills: [{ id: 'wait', name: 'Wait', description: 'Waits until cancelled' }] },
      }),
    );
    const waiting = createAgentRunner(await loadAgent(waiter), {
      // A session that only ends when cancelled, to cancel it over A2A.
      executeTask: (_task, options) =>
        new Promise((_resolve, reject) => options.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
      outDir: await outDir('a2a-seed'),
    });
    runners = [createAgentRunner(await loadAgent(GUIDE), { env, outDir: await outDir('a2a-guide') }), waiting];
    server = await serveA2A(runners, { port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all((runners ?? []).map((runner) => runner.close()));
  });

  it('publishes an agent card per agent, at distinct paths', async () => {
    expect(server.agents.map((a) => a.url)).toEqual([`${server.origin}/agents/station-guide/`, `${server.origin}/agents/waiter/`]);
    const card = (await (await fetch(`${server.origin}/agents/station-guide/.well-known/agent-card.json`)).json()) as Record<
      string,
      unknown
    >;
    expect(card).toMatchObject({
      name: 'Station Guide',
      version: '2.1.0',
      description: "Answers travellers' questions about stations of the city rail network.",
      supportedInterfaces: [{ url: `${server.origin}/agents/station-guide/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
    });
    expect((card.skills as { id: string }[]).map((s) => s.id)).toEqual(['describe_station', 'station_facts']);
    expect((await fetch(`${server.origin}/.well-known/agent-card.json`)).status).toBe(404);
  });

  it('answers blocking and streaming sends and finds the task again, with the SDK client', async () => {
    const client = await new ClientFactory().createFromUrl(server.agents[0]?.url ?? '');
    const blocking = (await client.sendMessage({
      tenant: '',
      message: userMessage([
        {
          content: { $case: 'data', value: { tool: 'describe_station', arguments: { name: 'Harbor' } } },
          metadata: undefined,
          filename: '',
          mediaType: 'application/json',
        },
      ]),
      configuration: undefined,
      metadata: {},
    })) as Task;
    expect(blocking.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(blocking.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'Harbor: step-free' });

    const kinds: string[] = [];
    let taskId = '';
    for await (const event of client.sendMessageStream({
      tenant: '',
      message: userMessage([textPart('Tell a traveller about Central station')]),
      configuration: undefined,
      metadata: {},
    })) {
      kinds.push(event.payload?.$case ?? 'none');
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
    }
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifactUpdate');
    const found = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    expect(found.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(found.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'Central: step-free' });
  });

  it('cancels a running task', async () => {
    const client = await new ClientFactory().createFromUrl(server.agents[1]?.url ?? '');
    const states: TaskState[] = [];
    let cancelled: Promise<Task> | undefined;
    for await (const event of client.sendMessageStream({
      tenant: '',
      message: userMessage([textPart('book something')]),
      configuration: undefined,
      metadata: {},
    })) {
      if (event.payload?.$case === 'statusUpdate') {
        const state = event.payload.value.status?.state;
        if (state !== undefined) states.push(state);
        if (state === TaskState.TASK_STATE_WORKING)
          cancelled = client.cancelTask({ tenant: '', id: event.payload.value.taskId, metadata: {} });
      }
    }
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await cancelled)?.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe('agents serve (orchestration)', () => {
  let remote: Awaited<ReturnType<typeof serveA2A>>;
  let remoteRunner: AgentRunner;
  let configFile: string;
  let sessionsDir: string;
  beforeAll(async () => {
    const root = await makeTempDir('orchestration');
    // A second agent, served over A2A, to be orchestrated by URL.
    const remoteDir = path.join(root, 'remote-guide');
    await cp(GUIDE, remoteDir, { recursive: true });
    const file = JSON.parse(await readFile(path.join(remoteDir, 'tsagent.json'), 'utf8')) as {
      metadata: { name: string };
      mcpServers: { stations: { args: string[] } };
    };
    file.metadata.name = 'Remote Guide';
    file.mcpServers.stations.args = ['--import', 'tsx', path.join(REPO, 'examples/mcp-server/stations-server.ts')];
    await writeFile(path.join(remoteDir, 'tsagent.json'), JSON.stringify(file));
    remoteRunner = createAgentRunner(await loadAgent(remoteDir, { env }), { env, outDir: path.join(root, 'remote-out') });
    remote = await serveA2A([remoteRunner], { port: 0 });
    sessionsDir = path.join(root, 'sessions');
    configFile = path.join(root, 'agents.json');
    await writeFile(
      configFile,
      JSON.stringify({ agents: [path.relative(root, GUIDE), remote.agents[0]?.url, './no-such-agent'], sessionsDir: 'sessions' }),
    );
  });
  afterAll(async () => {
    await remote?.close();
    await remoteRunner?.close();
  });

  async function connect() {
    const running = await serveAgents([configFile], { http: { port: 0 }, env });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url ?? '')));
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const value = JSON.parse(textOf(result)) as Record<string, unknown>;
      expect(result.structuredContent).toEqual(value);
      expect(result.isError === true).toBe(value.status === 'error');
      return value;
    };
    return { call, close: async () => void (await client.close(), await running.close()) };
  }

  it('lists local and A2A agents, runs them in sessions, and remembers the sessions after a restart', async () => {
    const first = await connect();
    let sessionId = '';
    try {
      const list = await first.call('list_agents');
      expect(list).toMatchObject({ status: 'success', count: 2 });
      expect((list.agents as { name: string; kind: string }[]).map((a) => [a.name, a.kind])).toEqual([
        ['Station Guide', 'local'],
        ['Remote Guide', 'a2a'],
      ]);
      expect(list.problems).toEqual([expect.stringContaining('no-such-agent')]);

      const one = await first.call('execute_agent', { agent_name: 'Station Guide', prompt: 'Tell a traveller about Harbor station' });
      expect(one).toMatchObject({ status: 'success', content: 'Harbor: step-free', session_id: expect.stringMatching(/^sess_/) });
      sessionId = one.session_id as string;
      const two = await first.call('execute_agent', {
        agent_name: 'Station Guide',
        prompt: 'Tell a traveller about Museum station',
        session_id: sessionId,
      });
      expect(two).toEqual({ status: 'success', content: 'Museum: not step-free', session_id: sessionId });
      // The second session saw the first exchange as context.
      const sent = model
        .chatRequests()
        .map((r) => JSON.stringify(r.messages))
        .find((m) => m.includes('about Museum station') && m.includes('Harbor: step-free'));
      expect(sent).toBeDefined();

      const viaA2A = await first.call('execute_agent', { agent_name: 'Remote Guide', prompt: 'Tell a traveller about Central station' });
      expect(viaA2A).toMatchObject({ status: 'success', content: 'Central: step-free' });
    } finally {
      await first.close();
    }

    // Saved whole: one JSON file per session, no temporary file left behind.
    const files = await readdir(sessionsDir);
    expect(files).toContain(`${sessionId}.json`);
    expect(files.filter((name) => !name.endsWith('.json'))).toEqual([]);
    expect(JSON.parse(await readFile(path.join(sessionsDir, `${sessionId}.json`), 'utf8'))).toMatchObject({
      id: sessionId,
      agent: 'Station Guide',
    });

    const second = await connect(); // a new server process state: only the disk remains
    try {
      const memory = await second.call('get_agent_memory', { session_id: sessionId });
      expect(memory).toEqual({
        status: 'success',
        session_id: sessionId,
        logs: [
          { role: 'user', content: 'Tell a traveller about Harbor station' },
          { role: 'assistant', content: 'Harbor: step-free' },
          { role: 'user', content: 'Tell a traveller about Museum station' },
          { role: 'assistant', content: 'Museum: not step-free' },
        ],
      });
    } finally {
      await second.close();
    }
  });

  it('answers with the spec messages for an unknown agent, a failed run and an unknown session', async () => {
    const server = await connect();
    try {
      expect(await server.call('execute_agent', { agent_name: 'Nobody', prompt: 'hi' })).toEqual({
        status: 'error',
        message: "Agent 'Nobody' not found.",
      });
      const failed = await server.call('execute_agent', { agent_name: 'Station Guide', prompt: 'Tell a traveller about Atlantis station' });
      expect(failed.status).toBe('error');
      expect(failed.message).toMatch(/^Failed to execute agent Station Guide: /);
      expect(await server.call('get_agent_memory', { session_id: 'sess_nope' })).toEqual({
        status: 'error',
        message: 'Session sess_nope not found.',
      });
      const bad = await server.call('get_agent_memory', { session_id: '../etc/passwd' });
      expect(bad.message).toMatch(/^Failed to retrieve memory for \.\.\/etc\/passwd: session id/);
    } finally {
      await server.close();
    }
  });
});

describe('the agent-spaces CLI', () => {
  const cliEnv = () => ({ ...env, PATH: process.env.PATH ?? '' });

  it('agent serve <dir> speaks MCP on stdio to the SDK client', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, 'agent', 'serve', GUIDE], env: cliEnv(), stderr: 'pipe' }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe('Station Guide');
      const result = (await client.callTool({ name: 'describe_station', arguments: { name: 'Northgate' } })) as CallToolResult;
      expect(textOf(result)).toBe('Northgate: step-free');
    } finally {
      await client.close();
    }
  });

  it('agent serve <dir> works with the MCP Inspector CLI', async () => {
    const inspector = path.join(REPO, 'node_modules/.bin/mcp-inspector');
    const list = await execa(inspector, ['--cli', process.execPath, BIN, 'agent', 'serve', GUIDE, '--method', 'tools/list'], {
      env: cliEnv(),
      timeout: 60_000,
    });
    expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual([
      'describe_station',
      'station_facts',
    ]);
    const call = await execa(
      inspector,
      [
        '--cli',
        process.execPath,
        BIN,
        'agent',
        'serve',
        GUIDE,
        '--method',
        'tools/call',
        '--tool-name',
        'describe_station',
        '--tool-arg',
        'name=Airport',
      ],
      {
        env: cliEnv(),
        timeout: 60_000,
      },
    );
    expect((JSON.parse(call.stdout) as { content: { text: string }[] }).content[0]?.text).toBe('Airport: step-free');
  });
});

describe('examples/agents/station-guide', () => {
  it('serves in one command and answers through an OpenAI-compatible endpoint', async () => {
    const example = path.join(REPO, 'examples/agents/station-guide');
    const agent = await loadAgent(example);
    expect(agent).toMatchObject({ name: 'Station Guide', mode: 'tools' });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'agent', 'serve', example],
        env: {
          PATH: process.env.PATH ?? '',
          AGENT_SPACES_BASE_URL: model.baseURL,
          AGENT_SPACES_MODEL: 'scripted-model',
          OPENAI_API_KEY: 'test-key',
        },
        stderr: 'pipe',
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['describe_station', 'accessible_stations']);
      const result = (await client.callTool({ name: 'describe_station', arguments: { name: 'Museum' } })) as CallToolResult;
      expect(textOf(result)).toBe('Museum: not step-free');
    } finally {
      await client.close();
    }
  });
});

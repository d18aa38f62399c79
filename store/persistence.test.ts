// What a store keeps besides runs, against a real PostgreSQL (a private cluster this file starts): A2A
// tasks (read back by another server and after a restart, secrets redacted in the table), execute_agent
// sessions (continued through another process's store), and the trace of a task a worker executed.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentRunner, loadAgent, openSpace, serveA2A, type AgentRunner, type RunningA2AServer } from '../agents/index.js';
import type { AgentTaskOptions } from '../agents/task-executor.js';
import { createAgentDirectory } from '../agents/orchestration/agent-directory.js';
import { createOrchestrationTools } from '../agents/orchestration/orchestration-tools.js';
import { loadConfig } from '../config/index.js';
import { callReply, startScriptedModelServer } from '../test/support/scripted-model-server.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import {
  openA2ATaskStores,
  openAgentSessionStore,
  readStoredTrace,
  submitRun,
  type StoredA2ATasks,
  type StoredAgentSessions,
} from './index.js';
import { submitTask } from '../worker/index.js';
import { pruneAgentRecords } from './prune-agent-records.js';
import { createPool } from './store.js';
import { makeDurableSpace, startCli } from './test-support/durable-space.js';
import { startPostgresCluster, type PostgresCluster } from './test-support/postgres-cluster.js';

let cluster: PostgresCluster;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 120_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await cluster?.stop();
});

/** The agent's model key: a secret of the agent, so nothing the store keeps may hold it. */
const SECRET = 'persist-secret-7f3a9c1e5b';

/** An A2A agent whose sessions echo the prompt (the answer carries the secret back) and record their context. */
async function echoAgent(contexts: (string | undefined)[]): Promise<AgentRunner> {
  const dir = await makeTempDir('persist-agent');
  await writeFile(
    path.join(dir, 'tsagent.json'),
    JSON.stringify({
      metadata: {
        name: 'Echo Desk',
        version: '1.0.0',
        description: 'Echoes',
        skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the message' }],
      },
      providers: { openai: { OPENAI_API_KEY: SECRET } },
    }),
  );
  const runner = createAgentRunner(await loadAgent(dir), {
    outDir: path.join(dir, 'out'),
    executeTask: async (task: string, options: AgentTaskOptions) => {
      contexts.push(options.context);
      return { success: true, finalSummary: `echo: ${task}` };
    },
  });
  closers.push(() => runner.close());
  return runner;
}

async function serveOnStore(runner: AgentRunner, store: string): Promise<{ server: RunningA2AServer; stores: StoredA2ATasks }> {
  const stores = await openA2ATaskStores(store);
  const server = await serveA2A([runner], { port: 0, taskStores: stores });
  closers.push(
    () => stores.close(),
    () => server.close(),
  );
  return { server, stores };
}

function userMessage(text: string, contextId = ''): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

async function send(url: string, text: string, contextId = ''): Promise<Task> {
  const client = await new ClientFactory().createFromUrl(url);
  return (await client.sendMessage({ tenant: '', message: userMessage(text, contextId), configuration: undefined, metadata: {} })) as Task;
}

async function getTask(url: string, id: string): Promise<Task> {
  const client = await new ClientFactory().createFromUrl(url);
  return client.getTask({ tenant: '', id });
}

const answerOf = (task: Task): unknown => task.artifacts[0]?.parts[0]?.content;

describe('A2A tasks in the store', () => {
  it('a task created on server A is answered by server B and after A restarts; its secret is redacted in the table; a follow-up in its context continues it', async () => {
    const store = await cluster.createDatabase('a2a_tasks');
    const contexts: (string | undefined)[] = [];
    const runner = await echoAgent(contexts);
    const a = await serveOnStore(runner, store);
    const b = await serveOnStore(runner, store);
    const urlA = a.server.agents[0]?.url ?? '';
    const urlB = b.server.agents[0]?.url ?? '';

    const created = await send(urlA, `hello, my key is ${SECRET}`);
    expect(created.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const fromB = await getTask(urlB, created.id);
    expect(fromB.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(fromB.contextId).toBe(created.contextId);
    expect(answerOf(fromB)).toEqual({ $case: 'text', value: 'echo: hello, my key is [REDACTED: model API key]' });

    // A restart: server A and its connections gone, a new server on the same store.
    await a.server.close();
    await a.stores.close();
    const restarted = await serveOnStore(runner, store);
    const afterRestart = await getTask(restarted.server.agents[0]?.url ?? '', created.id);
    expect(afterRestart.id).toBe(created.id);
    expect(answerOf(afterRestart)).toEqual({ $case: 'text', value: 'echo: hello, my key is [REDACTED: model API key]' });

    // What the table holds: the task (history and artifact) without the secret.
    const pool = createPool(store, 1);
    closers.push(() => pool.end());
    const { rows } = await pool.query<{ agent: string; task: string }>(
      'SELECT agent, task FROM agent_spaces.a2a_tasks WHERE task_id = $1',
      [created.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.agent).toBe('echo-desk');
    expect(rows[0]?.task).toContain('my key is [REDACTED: model API key]');
    expect(rows[0]?.task).not.toContain(SECRET);
    const leaks = await pool.query('SELECT task_id FROM agent_spaces.a2a_tasks WHERE task LIKE $1', [`%${SECRET}%`]);
    expect(leaks.rows).toEqual([]);

    // A follow-up on server B in the task's context: its session is given the earlier turn.
    const followUp = await send(urlB, 'and again?', created.contextId);
    expect(followUp.contextId).toBe(created.contextId);
    expect(followUp.id).not.toBe(created.id);
    expect(contexts.at(-1)).toBe(
      'Earlier messages of this conversation (oldest first):\nuser: hello, my key is [REDACTED: model API key]\nassistant: echo: hello, my key is [REDACTED: model API key]',
    );
    expect(contexts[0]).toBeUndefined();
  }, 120_000);

  it('keeps each agent to its own tasks, and an unknown task is not found', async () => {
    const store = await cluster.createDatabase('a2a_scope');
    const runner = await echoAgent([]);
    const { server, stores } = await serveOnStore(runner, store);
    const created = await send(server.agents[0]?.url ?? '', 'scoped');
    const other = stores.forAgent('another-agent', []);
    const { ServerCallContext } = await import('@a2a-js/sdk/server');
    expect(await other.load(created.id, new ServerCallContext())).toBeUndefined();
    expect((await stores.forAgent('echo-desk', []).load(created.id, new ServerCallContext()))?.id).toBe(created.id);
    await expect(getTask(server.agents[0]?.url ?? '', randomUUID())).rejects.toThrow(/not found/i);
  }, 120_000);

  it("lists a context's tasks newest first, page by page", async () => {
    const store = await cluster.createDatabase('a2a_list');
    const runner = await echoAgent([]);
    const { server } = await serveOnStore(runner, store);
    const url = server.agents[0]?.url ?? '';
    const first = await send(url, 'one');
    const second = await send(url, 'two', first.contextId);
    const third = await send(url, 'three', first.contextId);
    await send(url, 'elsewhere');
    const client = await new ClientFactory().createFromUrl(url);
    const list = (pageToken: string, includeArtifacts: boolean) =>
      client.listTasks({
        tenant: '',
        contextId: first.contextId,
        status: 0,
        pageSize: 2,
        pageToken,
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts,
      });
    const page = await list('', false);
    expect(page.tasks.map((task) => task.id)).toEqual([third.id, second.id]);
    expect(page.totalSize).toBe(3);
    expect(page.tasks.every((task) => task.artifacts.length === 0)).toBe(true);
    const next = await list(page.nextPageToken, true);
    expect(next.tasks.map((task) => task.id)).toEqual([first.id]);
    expect(next.nextPageToken).toBe('');
    expect(answerOf(next.tasks[0] as Task)).toEqual({ $case: 'text', value: 'echo: one' });
    // A filter the database cannot read is the caller's mistake, said as such (not PostgreSQL's error).
    const badTimestamp = client.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: 0,
      pageSize: 2,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: 'yesterday',
      includeArtifacts: false,
    });
    await expect(badTimestamp).rejects.toThrow(/statusTimestampAfter must be (a valid|an) ISO 8601/);
    const after = await client.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: 0,
      pageSize: 10,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: '2000-01-01T00:00:00Z',
      includeArtifacts: false,
    });
    expect(after.tasks).toHaveLength(3);
  }, 120_000);
});

describe('agent serve --a2a --store (the CLI)', () => {
  it("keeps the agent's tasks in the store: another server on it answers tasks/get", async () => {
    const model = await startScriptedModelServer([callReply('finish', { summary: 'the desk opens at nine' })]);
    closers.push(() => model.close());
    const store = await cluster.createDatabase('a2a_cli');
    const dir = await makeTempDir('persist-cli-agent');
    await writeFile(
      path.join(dir, 'tsagent.json'),
      JSON.stringify({
        metadata: {
          name: 'Front Desk',
          version: '1.0.0',
          description: 'Opening hours',
          skills: [{ id: 'hours', name: 'Hours', description: 'When the desk opens' }],
        },
        settings: { mostRecentModel: 'openai:scripted-model' },
        providers: { openai: { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: model.baseURL } },
      }),
    );
    const cli = startCli(['agent', 'serve', dir, '--a2a', '0', '--store', store], { cwd: dir });
    closers.push(async () => {
      cli.child.kill('SIGKILL');
      await cli.exited;
    });
    // Its last line at start: the server is up, its tasks in the store.
    await expect.poll(() => cli.stderr(), { timeout: 120_000 }).toMatch(/A2A server at \S+ \(tasks in the store\)/);
    const url = /A2A: agent "Front Desk" at (\S+) /.exec(cli.stderr())?.[1] ?? '';

    const created = await send(url, `when do you open? (key ${SECRET})`);
    expect(created.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // A second server of the same agent (a replica, here in this process) answers from the store.
    const replica = createAgentRunner(await loadAgent(dir), {
      outDir: path.join(dir, 'replica'),
      executeTask: () => Promise.reject(new Error('the replica runs no session here')),
    });
    closers.push(() => replica.close());
    const other = await serveOnStore(replica, store);
    const stored = await getTask(other.server.agents[0]?.url ?? '', created.id);
    expect(answerOf(stored)).toEqual({ $case: 'text', value: 'the desk opens at nine' });
    expect(stored.history[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'when do you open? (key [REDACTED: model API key])' });

    // The session's planner trace is in the store under the A2A task id (written as it ran).
    const traceTypes = async () =>
      ((await readStoredTrace(store, created.id))?.events ?? []).map((event) => (event as { type: string }).type);
    await expect.poll(traceTypes, { timeout: 60_000 }).toContain('task-finish');
    const trace = await readStoredTrace(store, created.id);
    expect(trace?.kind).toBe('task');
    expect(trace?.events[0]).toMatchObject({ type: 'task-start', task: 'when do you open? (key [REDACTED: model API key])' });
    expect(await traceTypes()).toContain('model-reply');
    expect(JSON.stringify(trace)).not.toContain(SECRET);

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  }, 180_000);
});

describe('execute_agent sessions in the store', () => {
  it('a session begun through one store connection is continued through another (another replica), secrets redacted', async () => {
    const store = await cluster.createDatabase('agent_sessions');
    const contexts: (string | undefined)[] = [];
    const runner = await echoAgent(contexts);
    const openReplica = async (): Promise<{ sessions: StoredAgentSessions; tools: ReturnType<typeof createOrchestrationTools> }> => {
      const sessions = await openAgentSessionStore(store, [SECRET]);
      const directory = createAgentDirectory([runner.agent.dir], { runners: [runner] });
      closers.push(
        () => sessions.close(),
        () => directory.close(),
      );
      return { sessions, tools: createOrchestrationTools(directory, sessions) };
    };
    const first = await openReplica();
    const second = await openReplica();

    const begun = await first.tools.executeAgent({ agent_name: 'Echo Desk', prompt: `remember ${SECRET}` });
    expect(begun).toMatchObject({ status: 'success', content: `echo: remember ${SECRET}` });
    const sessionId = begun.status === 'success' ? begun.session_id : '';

    const continued = await second.tools.executeAgent({ agent_name: 'Echo Desk', prompt: 'what did I say?', session_id: sessionId });
    expect(continued).toMatchObject({ status: 'success', session_id: sessionId });
    expect(contexts.at(-1)).toBe(
      'Earlier messages of this session (oldest first):\nuser: remember [REDACTED: configured secret]\nassistant: echo: remember [REDACTED: configured secret]',
    );

    const memory = await first.tools.getAgentMemory({ session_id: sessionId });
    expect(memory).toMatchObject({
      status: 'success',
      logs: [
        { role: 'user' },
        { role: 'assistant' },
        { role: 'user', content: 'what did I say?' },
        { role: 'assistant', content: 'echo: what did I say?' },
      ],
    });
    expect(first.sessions.location).toContain('the store postgres://');
  }, 120_000);
});

describe('execute_agent sessions of workers', () => {
  it('a session begun in a run on one worker process is continued by a run on another (the store, not files)', async () => {
    const model = await startScriptedModelServer([
      callReply('finish', { summary: 'noted: 42' }),
      callReply('finish', { summary: 'you said 42' }),
    ]);
    closers.push(() => model.close());
    const store = await cluster.createDatabase('worker_sessions');
    const agentDir = await makeTempDir('persist-memo-agent');
    await writeFile(
      path.join(agentDir, 'tsagent.json'),
      JSON.stringify({
        metadata: {
          name: 'Memo',
          version: '1.0.0',
          description: 'Remembers',
          skills: [{ id: 'remember', name: 'Remember', description: 'Remembers what you say' }],
        },
        settings: { mostRecentModel: 'openai:scripted-model' },
        providers: { openai: { OPENAI_API_KEY: 'memo-model-key', OPENAI_BASE_URL: model.baseURL } },
      }),
    );
    const root = await makeTempDir('persist-worker-sessions');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], agents: [agentDir] }));
    const startWorkerProcess = async (): Promise<ReturnType<typeof startCli>> => {
      const worker = startCli(['worker', '--store', store], { cwd: root });
      closers.push(async () => {
        worker.child.kill('SIGKILL');
        await worker.exited;
      });
      await expect.poll(() => worker.stderr(), { timeout: 120_000 }).toContain(' ready (');
      return worker;
    };
    const ask = (argumentsText: string) =>
      submitRun({
        store,
        code: `import { executeAgent } from '@capabilities/agents';\nexport default await executeAgent(${argumentsText});`,
      });

    const first = await startWorkerProcess();
    const begun = await ask(`{ agent_name: 'Memo', prompt: 'remember 42' }`);
    expect(begun.result).toMatchObject({ status: 'success', content: 'noted: 42' });
    const sessionId = (begun.result as { session_id: string }).session_id;
    first.child.kill('SIGTERM');
    await first.exited;

    await startWorkerProcess();
    const continued = await ask(`{ agent_name: 'Memo', prompt: 'what did I say?', session_id: '${sessionId}' }`);
    expect(continued.result).toMatchObject({ status: 'success', content: 'you said 42', session_id: sessionId });
    // The second session was given the first exchange, read from the store by the other process.
    const lastRequest = JSON.stringify(model.chatRequests().at(-1)?.messages);
    expect(lastRequest).toContain('Earlier messages of this session (oldest first):\\nuser: remember 42\\nassistant: noted: 42');

    const pool = createPool(store, 1);
    closers.push(() => pool.end());
    const { rows } = await pool.query<{ messages: string }>('SELECT messages FROM agent_spaces.agent_sessions WHERE id = $1', [sessionId]);
    expect(JSON.parse(rows[0]?.messages ?? '[]')).toHaveLength(4);
    // Not as files where sessions go without a store.
    expect(existsSync((await loadConfig({ cwd: root })).agentSessions)).toBe(false);
  }, 300_000);
});

describe('retention of agent records', () => {
  it('deletes finished A2A tasks and idle sessions older than the cutoff, never a task still working', async () => {
    const store = await cluster.createDatabase('agent_prune');
    const runner = await echoAgent([]);
    const { server, stores } = await serveOnStore(runner, store);
    const finished = await send(server.agents[0]?.url ?? '', 'done soon');
    const { ServerCallContext } = await import('@a2a-js/sdk/server');
    const working: Task = {
      id: randomUUID(),
      contextId: randomUUID(),
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [],
      metadata: {},
    };
    await stores.forAgent('echo-desk', []).save(working, new ServerCallContext());
    const sessions = await openAgentSessionStore(store);
    closers.push(() => sessions.close());
    await sessions.update('sess_old', 'Echo Desk', (session) =>
      session.messages.push({ role: 'user', content: 'hi', timestamp: new Date().toISOString() }),
    );
    const pool = createPool(store, 1);
    closers.push(() => pool.end());

    // A trace event of the finished task, and one of a worker's run (pruned elsewhere, not here).
    await pool.query(
      "INSERT INTO agent_spaces.run_events (run_id, kind, data) VALUES ($1, 'planner', '{}'), ('a-worker-run', 'log', '{}')",
      [finished.id],
    );

    expect(await pruneAgentRecords(pool, new Date(Date.now() - 3_600_000))).toEqual({ a2aTasks: 0, agentSessions: 0 });
    expect(await pruneAgentRecords(pool, new Date(Date.now() + 3_600_000))).toEqual({ a2aTasks: 1, agentSessions: 1 });
    const { rows } = await pool.query<{ task_id: string }>('SELECT task_id FROM agent_spaces.a2a_tasks');
    expect(rows.map((row) => row.task_id)).toEqual([working.id]);
    expect(rows.map((row) => row.task_id)).not.toContain(finished.id);
    expect(await sessions.get('sess_old')).toBeUndefined();
    const events = await pool.query<{ run_id: string }>('SELECT run_id FROM agent_spaces.run_events');
    expect(events.rows.map((row) => row.run_id)).toEqual(['a-worker-run']);
  }, 120_000);
});

describe('the trace of a task a worker executed', () => {
  it('is in the store, redacted, read back (library and `agent-spaces trace`) and replayable (`task --replay`)', async () => {
    const model = await startScriptedModelServer([callReply('finish', { summary: 'looked it up', result: { found: true } })]);
    closers.push(() => model.close());
    const space = await makeDurableSpace('persist-trace');
    const store = await cluster.createDatabase('traces');
    // The model key is a server secret of the worker's space: the planner and the worker redact it.
    const previousKey = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = SECRET;
    closers.push(async () => {
      if (previousKey === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = previousKey;
    });
    const { startWorker } = await import('../worker/worker.js');
    const worker = await startWorker({
      store,
      config: await loadConfig({ cwd: space.root }),
      openSpace,
      executorId: 'persist-trace-worker',
    });
    closers.push(() => worker.close());

    let taskId = '';
    const result = await submitTask({
      store,
      task: `find the record for ${SECRET}`,
      model: { baseURL: model.baseURL, model: 'scripted-model' },
      onEvent: (event) => {
        if (event.kind === 'planner' && (event.event as { type: string }).type === 'task-start')
          taskId = (event.event as { taskId: string }).taskId;
      },
    });
    expect(result.success).toBe(true);
    expect(taskId).not.toBe('');

    const trace = await readStoredTrace(store, taskId);
    expect(trace?.kind).toBe('task');
    const types = (trace?.events ?? []).map((event) => (event as { type: string }).type);
    expect(types[0]).toBe('task-start');
    expect(types).toContain('model-reply');
    expect(types.at(-1)).toBe('task-finish');
    expect(trace?.events[0]).toMatchObject({ type: 'task-start', taskId, task: 'find the record for [REDACTED: env OPENAI_API_KEY]' });
    expect(JSON.stringify(trace)).not.toContain(SECRET);
    expect(await readStoredTrace(store, 'no-such-task')).toBeUndefined();

    const pool = createPool(store, 1);
    closers.push(() => pool.end());
    const leaks = await pool.query('SELECT seq FROM agent_spaces.run_events WHERE data LIKE $1', [`%${SECRET}%`]);
    expect(leaks.rows).toEqual([]);

    // The CLI prints the same events as JSON lines (a trace file's lines).
    const cli = startCli(['trace', taskId, '--store', store], { cwd: space.root, env: space.env });
    expect(await cli.exited).toBe(0);
    const lines = cli
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines.map((line) => line.type)).toEqual(types);

    // Saved as a file, they are a trace `task --replay` replays (the model's replies, no model asked).
    const traceFile = path.join(space.root, 'stored-trace.jsonl');
    await writeFile(traceFile, cli.stdout());
    const replay = startCli(['task', '--replay', traceFile], { cwd: space.root, env: space.env });
    expect(await replay.exited).toBe(0);
    expect(replay.stdout()).toContain('looked it up');
  }, 300_000);
});

/**
 * What a PostgreSQL store adds, against a real cluster (one private cluster for the file) with real
 * servers and clients: the store's URL and errors never show its password; the studio on a store decides
 * an approval and reads a run only as its own page with its token, by exact id; A2A tasks and sessions
 * of one tenant stay unreadable to another, and no SQL passes through ids; retention keeps what it
 * promised; `serve` replicas sharing a store keep approval rounds, sessions, connections and the call
 * journal bounded; a hostile server's secrets reach no row; a task submitter cannot redirect the
 * worker's model key.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { Role, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../core/index.js';
import { createAgentRunner, loadAgent, openSpace, serveA2A, type AgentRunner, type RunningA2AServer } from '../../agents/index.js';
import { createAgentDirectory } from '../../agents/orchestration/agent-directory.js';
import { createOrchestrationTools } from '../../agents/orchestration/orchestration-tools.js';
import type { AgentTaskOptions } from '../../agents/task-executor.js';
import { loadConfig } from '../../config/index.js';
import {
  describeStore,
  openA2ATaskStores,
  resolveStoreUrl,
  openAgentSessionStore,
  openStoreMonitor,
  pruneStore,
  submitRun,
  type StoredA2ATasks,
} from '../../store/index.js';
import { startWorker, submitTask, type DurableWorker } from '../../worker/index.js';
import { getStoredApproval, requestStoredApproval } from '../../store/approval-store.js';
import { appendRunEvent } from '../../store/run-events.js';
import { createPool, ensureStoreSchema, type Pool } from '../../store/store.js';
import { makeDurableSpace, startCli, type DurableSpace } from '../../store/test-support/durable-space.js';
import { startPostgresCluster, type PostgresCluster } from '../../store/test-support/postgres-cluster.js';
import { serveSpace, type RunningServer } from '../../server/serve.js';
import { createSpace } from '../../space/index.js';
import { startStudio, type RunningStudio } from '../../studio/server/index.js';
import { ensureUiBuilt } from '../../studio/test-support/studio-space.js';
import { REPO } from '../support/example-space.js';
import { callReply, startScriptedModelServer } from '../support/scripted-model-server.js';
import { makeTempDir } from '../support/temp-dir.js';

const LONG = 600_000;

let cluster: PostgresCluster;
/** The cluster's port: URLs with passwords of our own choosing reach it (it trusts any password on loopback). */
let port: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  port = new URL(cluster.url).port;
}, 120_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await cluster?.stop();
});

/** A pool on `store` closed with the file. */
async function poolOn(store: string): Promise<Pool> {
  const pool = createPool(store, 2);
  closers.push(() => pool.end());
  await ensureStoreSchema(store, pool);
  return pool;
}

/** The part of a store password that must never be shown: what follows an `@` inside it. */
const PASSWORD_TAIL = 'Hunter2-attack4-7e1c';

describe('the store URL and the store errors', () => {
  // PostgreSQL's URL parser (pg-connection-string, WHATWG rules) takes everything up to the *last* "@"
  // of the authority as user info, so a password may hold "@": every message naming the store (the
  // studio's page, `run --store`, the worker's notices, errors) and the redactor's rule for any URL's
  // password must mask all of it, not up to its first "@".
  it(
    'a store password holding "@" is masked whole, in describeStore and on the studio page',
    async () => {
      const url = `postgres://postgres:open@${PASSWORD_TAIL}@127.0.0.1:${port}/s1_store`;
      const { parse } = await import('pg-connection-string');
      expect(parse(url).password).toBe(`open@${PASSWORD_TAIL}`); // what PostgreSQL is sent
      expect(describeStore(url)).not.toContain(PASSWORD_TAIL);
      expect(describeStore(url)).toBe(`postgres://postgres:***@127.0.0.1:${port}/s1_store`);
      // Other shapes stay as they were: a password-less URL is shown whole, query passwords masked.
      expect(describeStore(`postgres://127.0.0.1:${port}/db?user=u&password=${PASSWORD_TAIL}&application_name=a@b`)).not.toContain(
        PASSWORD_TAIL,
      );
      expect(describeStore(`postgres://u@db.example:5432/spaces`)).toBe('postgres://u@db.example:5432/spaces');
      // A store that is not a URL (a typo in $AGENT_SPACES_STORE) is refused with its text quoted: masked too.
      for (const typo of [`app:${PASSWORD_TAIL}@db/x`, `postgres//app:${PASSWORD_TAIL}@db/x`, `postgres:/app:open@${PASSWORD_TAIL}@db/x`]) {
        expect(describeStore(typo), typo).not.toContain(PASSWORD_TAIL);
        let refusal = '';
        try {
          resolveStoreUrl({ option: typo });
        } catch (error) {
          refusal = (error as Error).message;
        }
        expect(refusal, typo).toMatch(/must be a PostgreSQL URL/);
        expect(refusal, typo).not.toContain(PASSWORD_TAIL);
      }
      // The bridge's redactor (errors, logs, traces) read URL passwords the same way: up to the first "@".
      const redact = createRedactor({ secrets: [] });
      expect(redact(`the tool failed: cannot connect to ${url} (timeout)`)).toBe(
        `the tool failed: cannot connect to postgres://postgres:[REDACTED: URL password]@127.0.0.1:${port}/s1_store (timeout)`,
      );

      // End to end: the studio on such a store (it connects: the cluster trusts loopback) never shows it.
      await cluster.createDatabase('s1_store');
      const space = await makeDurableSpace('attack4-s1');
      const studio = await startStudio({ openSpace, cwd: space.root, store: url, uiDir: await ensureUiBuilt() });
      closers.push(() => studio.close());
      const pool = await poolOn(url);
      await requestStoredApproval(pool, {
        runId: 's1-run',
        callKey: 'k1',
        capability: 'ledger',
        function: 'send',
        params: { item: 'x' },
        message: 'Send x?',
      });
      const pages = await Promise.all(
        ['/api/space', '/api/approvals', '/api/runs'].map(async (pathname) => {
          const response = await fetch(`${studio.origin}${pathname}`, { headers: { authorization: `Bearer ${studio.token}` } });
          expect(response.status, pathname).toBe(200);
          return response.text();
        }),
      );
      expect(pages.join('\n')).toContain('postgres://postgres:***@127.0.0.1');
      expect(pages.join('\n')).not.toContain(PASSWORD_TAIL);
    },
    LONG,
  );

  it(
    'a store that cannot be reached, or has no such database, is named without its password by every entry point',
    async () => {
      const secret = 'attack4-unreachable-pw';
      const urls = [
        `postgres://postgres:${secret}@127.0.0.1:${port}/no_such_database`,
        `postgres://postgres:${secret}@127.0.0.1:1/db`,
        `postgres://postgres@127.0.0.1:${port}/no_such_db?password=${secret}`,
      ];
      for (const url of urls) {
        const attempts: [string, () => Promise<unknown>][] = [
          ['openStoreMonitor', async () => (await openStoreMonitor(url)).close()],
          ['submitRun', () => submitRun({ store: url, code: 'export default 1;' })],
          ['pruneStore', () => pruneStore({ store: url, olderThanMs: 0 })],
          ['openA2ATaskStores', () => openA2ATaskStores(url)],
          ['openAgentSessionStore', () => openAgentSessionStore(url)],
        ];
        for (const [name, attempt] of attempts) {
          const error = await attempt().then(
            () => undefined,
            (thrown: unknown) => thrown as Error & { code?: string },
          );
          expect(error?.code, `${name} ${url}`).toBe('STORE_UNAVAILABLE');
          // The message, and everything the error carries (its cause too), as a log would print it.
          const everything = `${error?.message} ${JSON.stringify(error, Object.getOwnPropertyNames(error))} ${String((error?.cause as Error | undefined)?.message)}`;
          expect(everything, `${name} ${url}`).not.toContain(secret);
        }
      }
    },
    LONG,
  );
});

describe('the studio on a store, from another page and without its token', () => {
  let studio: RunningStudio;
  let pool: Pool;
  let space: DurableSpace;
  let store: string;

  beforeAll(async () => {
    store = await cluster.createDatabase('t_studio');
    space = await makeDurableSpace('attack4-studio');
    studio = await startStudio({ openSpace, cwd: space.root, store, uiDir: await ensureUiBuilt() });
    closers.push(() => studio.close());
    pool = await poolOn(store);
  }, LONG);

  /** A pending approval of some run in the store, as a worker creates it. */
  const pendingApproval = (item: string) =>
    requestStoredApproval(pool, {
      runId: `t-run-${item}`,
      callKey: `k-${item}`,
      capability: 'ledger',
      function: 'send',
      params: { item },
      message: `Send ${item}?`,
    });

  const api = (pathname: string, init: RequestInit & { token?: string | false } = {}) => {
    const { token = studio.token, headers, ...rest } = init;
    return fetch(`${studio.origin}${pathname}`, {
      ...rest,
      headers: { ...(token === false ? {} : { authorization: `Bearer ${token}` }), ...(headers as Record<string, string> | undefined) },
    });
  };
  const approve = (id: string, init: RequestInit & { token?: string | false } = {}) =>
    api(`/api/approvals/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true }),
      ...init,
    });

  it('decides no store approval and reads no stored run without the token, with a wrong one, from another origin, or as a form post', async () => {
    const approval = await pendingApproval('csrf');
    const refusals: [string, Response][] = [
      ['no token', await approve(approval.id, { token: false })],
      ['a wrong token', await approve(approval.id, { token: 'x'.repeat(43) })],
      // A page on another origin that learned the token still cannot use it from the browser.
      ['another origin', await approve(approval.id, { headers: { 'content-type': 'application/json', origin: 'http://evil.example' } })],
      // What a cross-site form can send without a preflight: text/plain.
      ['a form post', await approve(approval.id, { headers: { 'content-type': 'text/plain' } })],
    ];
    // DNS rebinding: the right token, a Host that is not the studio's (fetch cannot set Host: node:http can).
    const rebound = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ approved: true });
      const sent = request(
        `${studio.origin}/api/approvals/${approval.id}`,
        {
          method: 'POST',
          headers: {
            host: 'evil.example',
            authorization: `Bearer ${studio.token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (answer) => {
          answer.resume();
          resolve(answer.statusCode ?? 0);
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });
    expect([...refusals.map(([what, response]) => [what, response.status]), ['a rebound Host', rebound]]).toEqual([
      ['no token', 401],
      ['a wrong token', 401],
      ['another origin', 403],
      ['a form post', 415],
      ['a rebound Host', 403],
    ]);
    expect((await getStoredApproval(pool, approval.id))?.status).toBe('pending');
    for (const pathname of ['/api/approvals', '/api/runs', `/api/runs/t-run-csrf`, `/api/events?token=${'y'.repeat(43)}`]) {
      expect((await api(pathname, { token: false })).status, pathname).toBe(401);
    }
  });

  it('decides only the exact id it is given: a prefix, a LIKE wildcard or an id decided already changes nothing', async () => {
    const approval = await pendingApproval('exact');
    // The CLI takes a prefix of an id; the inbox must not (a click decides the approval it shows).
    expect((await approve(approval.id.slice(0, 4))).status).toBe(404);
    expect((await approve(`${approval.id.slice(0, 4)}%`)).status).toBe(404);
    expect((await getStoredApproval(pool, approval.id))?.status).toBe('pending');
    const decided = await approve(approval.id);
    expect(decided.status).toBe(200);
    // A replayed click (or a page that raced) cannot turn the decision into a denial.
    const again = await api(`/api/approvals/${approval.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approved: false, reason: 'changed my mind' }),
    });
    expect(again.status).toBe(404);
    expect(await getStoredApproval(pool, approval.id)).toMatchObject({ status: 'approved' });
  });

  it('cannot approve an approval whose deadline passed (it is denied first), from the inbox or by a replayed click', async () => {
    const approval = await pendingApproval('late');
    await pool.query(`UPDATE agent_spaces.approvals SET deadline = now() - interval '1 minute' WHERE id = $1`, [approval.id]);
    expect((await approve(approval.id)).status).toBe(404);
    expect(await getStoredApproval(pool, approval.id)).toMatchObject({ status: 'denied', reason: expect.stringMatching(/deadline/) });
  });

  it(
    "prints a hostile program's approval (escape sequences, bidi overrides in its message and arguments) inert in agent-spaces approvals list",
    async () => {
      const hostile = '\u001b]0;pwned\u0007\u001b[2J\u202eevil\u202c';
      await requestStoredApproval(pool, {
        runId: 't-run-terminal',
        callKey: 'k-terminal',
        capability: 'ledger',
        function: 'send',
        params: { item: hostile },
        message: `Send ${hostile}?`,
      });
      const listed = startCli(['approvals', 'list', '--store', store], { cwd: space.root });
      closers.push(async () => listed.child.kill('SIGKILL'));
      expect(await listed.exited).toBe(0);
      const printed = listed.stdout();
      expect(printed).toContain('t-run-terminal');
      for (const character of ['\u001b', '\u0007', '\u202e', '\u202c'])
        expect(printed.includes(character), JSON.stringify(character)).toBe(false);
    },
    LONG,
  );

  it('reads runs by id only: SQL and path tricks in a run id are refused before the store sees them', async () => {
    for (const id of ["x' OR '1'='1", 'x%27%20OR%201%3D1--', '..%2F..%2Fetc', '%00']) {
      const response = await api(`/api/runs/${encodeURIComponent(id)}`);
      expect([400, 404], id).toContain(response.status);
      expect(await response.text(), id).not.toMatch(/syntax error|postgres/i);
    }
  });
});

describe('A2A tasks in the store, from another tenant', () => {
  let server: RunningA2AServer;
  let url: string;
  let store: string;
  let runner: AgentRunner;
  const contexts: (string | undefined)[] = [];

  beforeAll(async () => {
    store = await cluster.createDatabase('a_tasks');
    const dir = await makeTempDir('attack4-a2a');
    await writeFile(
      path.join(dir, 'tsagent.json'),
      JSON.stringify({
        metadata: {
          name: 'Echo Desk',
          version: '1.0.0',
          description: 'Echoes',
          skills: [{ id: 'echo', name: 'Echo', description: 'Echoes' }],
        },
        providers: { openai: { OPENAI_API_KEY: 'attack4-agent-key' } },
      }),
    );
    // A real runner whose sessions echo the prompt (no model): what the test reads is the store's scoping.
    runner = createAgentRunner(await loadAgent(dir), {
      outDir: path.join(dir, 'out'),
      executeTask: async (task: string, options: AgentTaskOptions) => {
        contexts.push(options.context);
        return { success: true, finalSummary: `echo: ${task}` };
      },
    });
    const stores: StoredA2ATasks = await openA2ATaskStores(store);
    server = await serveA2A([runner], { port: 0, taskStores: stores });
    closers.push(
      () => runner.close(),
      () => stores.close(),
      () => server.close(),
    );
    url = server.agents[0]?.url ?? '';
  }, LONG);

  const message = (text: string, contextId = ''): Message => ({
    messageId: randomUUID(),
    contextId,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  });

  it(
    'reads and continues no task of another tenant, whatever its tenant, context id or page token says (no SQL through them)',
    async () => {
      const client = await new ClientFactory().createFromUrl(url);
      const secretTask = (await client.sendMessage({
        tenant: 'acme',
        message: message('the acme launch code is 0000'),
        configuration: undefined,
        metadata: {},
      })) as Task;
      const list = (tenant: string, extra: { contextId?: string; pageToken?: string } = {}) =>
        client.listTasks({
          tenant,
          contextId: extra.contextId ?? '',
          status: 0,
          pageSize: 50,
          pageToken: extra.pageToken ?? '',
          historyLength: undefined,
          statusTimestampAfter: undefined,
          includeArtifacts: true,
        });
      for (const tenant of ["' OR '1'='1", "acme' --", '%', '']) {
        await expect(client.getTask({ tenant, id: secretTask.id }), JSON.stringify(tenant)).rejects.toThrow(/not found/i);
        expect((await list(tenant)).tasks, JSON.stringify(tenant)).toEqual([]);
        expect((await list(tenant, { contextId: `${secretTask.contextId}' OR '1'='1` })).tasks).toEqual([]);
      }
      // A page token is the server's own cursor; a forged one holding SQL reads nothing more.
      const forged = Buffer.from(`9999' OR '1'='1|' OR '1'='1`).toString('base64');
      expect((await list('', { pageToken: forged })).tasks).toEqual([]);
      // Another tenant that learned the context id joins its own conversation, not acme's: no earlier turns.
      contexts.length = 0;
      const intruder = (await client.sendMessage({
        tenant: 'intruder',
        message: message('what was said before?', secretTask.contextId),
        configuration: undefined,
        metadata: {},
      })) as Task;
      expect(intruder.contextId).toBe(secretTask.contextId);
      expect(contexts).toEqual([undefined]);
      expect(JSON.stringify(await client.getTask({ tenant: 'intruder', id: intruder.id }))).not.toContain('launch code');
      // acme itself still reads its task.
      expect((await client.getTask({ tenant: 'acme', id: secretTask.id })).id).toBe(secretTask.id);
    },
    LONG,
  );

  // A NUL in a tenant, context or task id would reach PostgreSQL as a query parameter, which refuses it:
  // the client would get the database's own error, and the server's stderr its stack. The store refuses
  // such ids as a malformed request (RequestMalformedError naming the field) before any query.
  it('a NUL in a tenant or context id is refused as a malformed request, not answered with a database error', async () => {
    const client = await new ClientFactory().createFromUrl(url);
    const ran = contexts.length;
    const failures = await Promise.all([
      client.getTask({ tenant: 'acme\u0000', id: randomUUID() }).then(
        () => 'answered',
        (error: unknown) => String(error),
      ),
      client.sendMessage({ tenant: '', message: message('hello', 'context\u0000'), configuration: undefined, metadata: {} }).then(
        () => 'answered',
        (error: unknown) => String(error),
      ),
    ]);
    for (const failure of failures) {
      expect(failure).not.toMatch(/byte sequence|UTF8|0x00/);
      expect(failure).toMatch(/tenant|context/i);
    }
    expect(contexts.length).toBe(ran); // no session ran for them
  });

  // A caller (a program's execute_agent, an `agents serve --store` client) may name its sessions. The
  // store checks the id as the file store does (1–128 letters, digits, "_", "-", "."), in get and update,
  // before any query: an id past PostgreSQL's index limit (~2.7 KB) would otherwise run the whole agent
  // session — paid model calls — before its row cannot be written, and hand the caller the database's error.
  it(
    'an execute_agent session id the file store refuses is refused by the store too, before the agent runs',
    async () => {
      const sessions = await openAgentSessionStore(store);
      const directory = createAgentDirectory([runner.agent.dir], { runners: [runner] });
      closers.push(
        () => sessions.close(),
        () => directory.close(),
      );
      const tools = createOrchestrationTools(directory, sessions);
      const ran = contexts.length;
      for (const sessionId of [randomBytes(3000).toString('base64url'), '../../etc/passwd', 'chosen by me\n']) {
        const answer = await tools.executeAgent({ agent_name: 'Echo Desk', prompt: 'hello', session_id: sessionId });
        expect(answer.status, sessionId.slice(0, 20)).toBe('error');
        expect(JSON.stringify(answer)).not.toMatch(/btree|index row|agent_sessions_pkey/);
      }
      expect(contexts.length).toBe(ran);
    },
    LONG,
  );
});

describe('retention keeps what it promised', () => {
  it(
    'a run still queued keeps its events and pending approval even when an old end event says it ended; a finished run goes',
    async () => {
      const store = await cluster.createDatabase('p_prune');
      const pool = await poolOn(store);
      // Queued with no worker alive: DBOS holds it as ENQUEUED. The submitter leaves; the run stays.
      const leave = new AbortController();
      let queued = '';
      const submitted = submitRun({
        store,
        code: 'export default 1;',
        onNoWorker: (runId) => {
          queued = runId;
          leave.abort();
        },
        signal: leave.signal,
      }).catch(() => undefined);
      await submitted;
      expect(queued).not.toBe('');
      // Rows that claim it ended a day ago (a worker of an earlier attempt, a replayed id): retention must ask DBOS.
      await appendRunEvent(pool, queued, { kind: 'end', result: { success: true } });
      await requestStoredApproval(pool, {
        runId: queued,
        callKey: 'k',
        capability: 'ledger',
        function: 'send',
        params: {},
        message: 'Send?',
      });
      // A run that really ended, to show the prune did run: an end event and a decided approval, no DBOS row left running.
      await appendRunEvent(pool, 'p-finished-run', { kind: 'end', result: { success: true } });
      await pool.query(`UPDATE agent_spaces.run_events SET created_at = now() - interval '1 day'`);
      const report = await pruneStore({ store, olderThanMs: 60_000 });
      expect(report?.runs).toBe(1);
      const events = await pool.query<{ run_id: string }>('SELECT run_id FROM agent_spaces.run_events ORDER BY seq');
      expect(events.rows.map((row) => row.run_id)).toEqual([queued]);
      const approvals = await pool.query<{ status: string }>('SELECT status FROM agent_spaces.approvals WHERE run_id = $1', [queued]);
      expect(approvals.rows).toEqual([{ status: 'pending' }]);
    },
    LONG,
  );
});

/** The hostile MCP server of test/hostile/secrets.test.ts: it repeats its env and args wherever it can. */
const LEAKY_FIXTURE = path.join(REPO, 'test/fixtures/secret-echo-server.mjs');
const LEAKY_SECRETS = { env: 'leaky-env-attack4-5d2e9f', arg: 'leaky-arg-attack4-0b7c3a' };

describe('serve replicas sharing a store', () => {
  const STATE_KEY = `attack4-state-key-${randomUUID()}`;
  let store: string;
  let space: DurableSpace;
  let worker: DurableWorker;
  let pool: Pool;
  const replicas: RunningServer[] = [];
  /** Live sessions of one replica at most (small, so that the cap is reached). */
  const MAX_SESSIONS = 2;

  beforeAll(async () => {
    store = await cluster.createDatabase('v_serve');
    space = await makeDurableSpace('attack4-serve');
    // Beside the ledger, a hostile MCP server that quotes its secrets (env, args) in errors and results.
    const configFile = path.join(space.root, 'agent-spaces.config.json');
    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    await mkdir(path.join(space.root, 'leaky-state'));
    config.mcpServers = {
      leaky: {
        command: process.execPath,
        args: [LEAKY_FIXTURE, `--state-dir=${path.join(space.root, 'leaky-state')}`, `--api-key=${LEAKY_SECRETS.arg}`],
        env: { LEAKY_TOKEN: LEAKY_SECRETS.env, LEAKY_PIN: 'pin-attack4-x' },
        timeoutMs: 10_000,
      },
    };
    await writeFile(configFile, JSON.stringify(config, null, 2));
    // The ledger capability runs in this process (the worker's bridge) and writes where the test reads.
    process.env.LEDGER_DIR = space.ledgerDir;
    worker = await startWorker({
      store,
      config: await loadConfig({ cwd: space.root }),
      openSpace: createSpace,
      executorId: 'attack4-worker',
      concurrency: 2,
    });
    closers.push(() => worker.close());
    for (let index = 0; index < 2; index++) {
      const replica = await serveSpace({ cwd: space.root, http: { port: 0, maxSessions: MAX_SESSIONS }, store, stateKey: STATE_KEY });
      replicas.push(replica);
      closers.push(() => replica.close());
    }
    pool = await poolOn(store);
  }, LONG);

  const sendProgram = (item: string): string =>
    `import { ledger } from '@capabilities/ledger';\nawait ledger.send({ item: '${item}' });\nexport default '${item}';`;
  const replicaUrl = (index: number): string => replicas[index]?.url ?? '';

  /** The final JSON-RPC message of an answer, whether it came as JSON or as server-sent events. */
  async function finalMessage(response: Response): Promise<{ result?: Record<string, unknown>; error?: { message: string } }> {
    const text = await response.text();
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream'))
      return JSON.parse(text) as { result?: Record<string, unknown> };
    const messages = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { id?: unknown; result?: Record<string, unknown>; error?: { message: string } });
    const last = messages.findLast((message) => message.id !== undefined && (message.result !== undefined || message.error !== undefined));
    if (!last) throw new Error(`no answer in the stream: ${text.slice(0, 500)}`);
    return last;
  }

  /** One raw 2026-07-28 `execute_code` request (what any HTTP client can send): no session, the envelope in `_meta`. */
  async function call2026(
    index: number,
    code: string,
    round: { requestState?: string; inputResponses?: Record<string, unknown> } = {},
    options: { elicitation?: boolean; signal?: AbortSignal } = {},
  ) {
    const response = await fetch(replicaUrl(index), {
      method: 'POST',
      ...(options.signal ? { signal: options.signal } : {}),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'execute_code',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: randomUUID(),
        method: 'tools/call',
        params: {
          name: 'execute_code',
          arguments: { code },
          ...round,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'attacker', version: '4' },
            'io.modelcontextprotocol/clientCapabilities': options.elicitation === false ? {} : { elicitation: {} },
          },
        },
      }),
    });
    return finalMessage(response);
  }

  const approve = { action: 'accept', content: { approve: true } };
  const deny = { action: 'accept', content: { approve: false } };
  const sends = (item: string): number => space.effects().filter((line) => line === `send ${item}`).length;

  /** The first round of a run that needs one approval: its stored approval id and sealed state. */
  async function firstRound(index: number, item: string): Promise<{ approvalId: string; requestState: string }> {
    const { result } = await call2026(index, sendProgram(item));
    expect(result?.resultType).toBe('input_required');
    const approvalId = Object.keys(result?.inputRequests as object)[0] ?? '';
    return { approvalId, requestState: String(result?.requestState) };
  }

  const textOf = (result: Record<string, unknown> | undefined): string =>
    ((result?.content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');

  it(
    'a replayed requestState, on either replica, with another answer or another program, changes no decision and runs nothing again',
    async () => {
      const { approvalId, requestState } = await firstRound(0, 'alpha');
      const done = await call2026(1, sendProgram('alpha'), { requestState, inputResponses: { [approvalId]: approve } });
      expect(done.result?.structuredContent).toMatchObject({ success: true, result: 'alpha' });
      expect(sends('alpha')).toBe(1);
      // The same state again, now denying, on both replicas, and once carrying another program.
      for (const [index, code] of [
        [0, sendProgram('alpha')],
        [1, sendProgram('alpha')],
        [0, sendProgram('omega')],
      ] as const) {
        const replayed = await call2026(index, code, { requestState, inputResponses: { [approvalId]: deny } });
        expect(replayed.result?.structuredContent, code).toMatchObject({ success: true, result: 'alpha' });
      }
      expect(await getStoredApproval(pool, approvalId)).toMatchObject({ status: 'approved', reason: 'approved by the user' });
      expect(sends('alpha')).toBe(1);
      expect(sends('omega')).toBe(0);
    },
    LONG,
  );

  it(
    "a requestState decides only its own run's approvals: another caller's approval id in its answers, or an altered state, decides nothing",
    async () => {
      const victim = await firstRound(1, 'victim');
      const attacker = await firstRound(0, 'attacker');
      // The attacker answers the victim's approval id (learned somehow) with its own sealed state.
      const swapped = await call2026(0, sendProgram('attacker'), {
        requestState: attacker.requestState,
        inputResponses: { [victim.approvalId]: approve },
      });
      expect(swapped.result?.resultType).toBe('input_required'); // its own approval still waits: asked again
      expect(Object.keys(swapped.result?.inputRequests as object)).toEqual([attacker.approvalId]);
      expect((await getStoredApproval(pool, victim.approvalId))?.status).toBe('pending');
      // Its state with one character changed opens nowhere.
      const last = attacker.requestState.at(-2) === 'A' ? 'B' : 'A';
      const altered = `${attacker.requestState.slice(0, -2)}${last}${attacker.requestState.at(-1) ?? ''}`;
      const refused = await call2026(1, sendProgram('attacker'), {
        requestState: altered,
        inputResponses: { [victim.approvalId]: approve, [attacker.approvalId]: approve },
      });
      expect(textOf(refused.result)).toMatch(/not sealed by a server of this store/);
      expect((await getStoredApproval(pool, victim.approvalId))?.status).toBe('pending');
      expect((await getStoredApproval(pool, attacker.approvalId))?.status).toBe('pending');
      // Both end denied by their own states: nothing was sent.
      const ends = await Promise.all([
        call2026(0, sendProgram('attacker'), {
          requestState: swapped.result?.requestState as string,
          inputResponses: { [attacker.approvalId]: deny },
        }),
        call2026(1, sendProgram('victim'), { requestState: victim.requestState, inputResponses: { [victim.approvalId]: deny } }),
      ]);
      for (const end of ends) expect(end.result?.structuredContent).toMatchObject({ success: false });
      expect(sends('victim') + sends('attacker')).toBe(0);
    },
    LONG,
  );

  /** A raw 2025-11-25 initialize: the new session's id. */
  async function initialize(
    index: number,
    clientInfo: Record<string, unknown> = { name: 'attacker', version: '4' },
  ): Promise<{ status: number; sessionId: string | null }> {
    const response = await fetch(replicaUrl(index), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
      }),
    });
    await response.text();
    return { status: response.status, sessionId: response.headers.get('mcp-session-id') };
  }

  // With a store, the session cap (maxSessions) must bound the serve_sessions table, not only a
  // replica's memory: every initialize writes a row (its parameters, up to 64 KiB) before the client
  // learns the id, so a caller looping on initialize would fill the database every worker and replica
  // depends on. A replica that evicts or closes a session releases its row unless another replica used
  // it since, and an oversized initialize is refused before it evicts anyone.
  it(
    "the sessions table holds no more live sessions than the replicas' cap, however many initializes arrive",
    async () => {
      const before = Number(
        (await pool.query<{ count: string }>('SELECT count(*) AS count FROM agent_spaces.serve_sessions')).rows[0]?.count,
      );
      // Three times what both replicas together may hold, each with 60 KiB of client info (below the 64 KiB cap).
      for (let index = 0; index < MAX_SESSIONS * replicas.length * 3; index++) {
        const { status, sessionId } = await initialize(index % 2, { name: 'attacker', version: '4', padding: 'p'.repeat(60 * 1024) });
        expect(status).toBe(200);
        expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
      }
      const rows = await pool.query<{ count: string; bytes: string }>(
        'SELECT count(*) AS count, coalesce(sum(length(init)), 0) AS bytes FROM agent_spaces.serve_sessions',
      );
      expect(
        Number(rows.rows[0]?.count) - before,
        `${rows.rows[0]?.bytes ?? 0} characters of initialize parameters kept`,
      ).toBeLessThanOrEqual(MAX_SESSIONS * replicas.length);
    },
    LONG,
  );

  it(
    "a session id the client makes up (or another store's, or SQL) is unknown on every replica and writes no row: ids come only from initialize",
    async () => {
      const before = Number(
        (await pool.query<{ count: string }>('SELECT count(*) AS count FROM agent_spaces.serve_sessions')).rows[0]?.count,
      );
      for (const sessionId of [randomUUID(), "x' OR '1'='1", '00000000-0000-0000-0000-000000000000']) {
        for (const index of [0, 1]) {
          const response = await fetch(replicaUrl(index), {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-session-id': sessionId,
              'mcp-protocol-version': '2025-11-25',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
          });
          expect(response.status, sessionId).toBe(404);
        }
      }
      expect(
        Number((await pool.query<{ count: string }>('SELECT count(*) AS count FROM agent_spaces.serve_sessions')).rows[0]?.count),
      ).toBe(before);
    },
    LONG,
  );

  it(
    'refuses initialize parameters larger than the shared session keeps (64 KiB): no such row is written',
    async () => {
      const { status, sessionId } = await initialize(0, { name: 'oversized', version: '4', padding: 'p'.repeat(70 * 1024) });
      expect(status).toBe(400);
      expect(sessionId).toBeNull();
      const { rows } = await pool.query<{ count: string }>(
        "SELECT count(*) AS count FROM agent_spaces.serve_sessions WHERE length(init) > 64 * 1024 OR init LIKE '%oversized%'",
      );
      expect(Number(rows[0]?.count)).toBe(0);
    },
    LONG,
  );

  // A replica follows all its runs through one store connection (one pool shared with DBOS's client,
  // one LISTEN connection): were each followed execute_code to hold connections of its own until its run
  // ends (hours, for a queued run or one waiting for a person), a few dozen requests that need no approval
  // and no worker slot would exhaust PostgreSQL's max_connections and stop every worker, replica and tenant.
  it(
    'runs a replica follows do not each hold connections to the store',
    async () => {
      // Both worker slots busy with programs held at a gate: what is submitted now waits in the queue.
      const gated = ['v2-a', 'v2-b'].map((name) =>
        submitRun({
          store,
          code: `import { ledger } from '@capabilities/ledger';\nawait ledger.gate({ name: '${name}' });\nexport default '${name}';`,
        }),
      );
      const queued = 8;
      const followed: Promise<unknown>[] = [];
      try {
        await expect.poll(() => space.waiting(), { timeout: LONG }).toEqual(expect.arrayContaining(['v2-a', 'v2-b']));
        const connections = async (): Promise<number> =>
          Number(
            (await pool.query<{ count: string }>("SELECT count(*) AS count FROM pg_stat_activity WHERE datname = 'v_serve'")).rows[0]
              ?.count,
          );
        const before = await connections();
        // Callers with no elicitation: their runs need no person, they only wait for a worker.
        for (let index = 0; index < queued; index++)
          followed.push(call2026(index % 2, `export default ${index};`, {}, { elicitation: false }));
        const enqueued = async (): Promise<number> =>
          Number(
            (await pool.query<{ count: string }>("SELECT count(*) AS count FROM dbos.workflow_status WHERE status = 'ENQUEUED'")).rows[0]
              ?.count,
          );
        await expect.poll(enqueued, { timeout: LONG }).toBe(queued);
        const held = (await connections()) - before;
        expect(held, `${queued} followed runs hold ${held} more connections`).toBeLessThan(queued);
      } finally {
        await Promise.all([space.open('v2-a'), space.open('v2-b')]);
        await Promise.all([...gated, ...followed]);
      }
    },
    LONG,
  );

  // A run's call journal keeps at most 64 MiB of call results (MAX_JOURNAL_BYTES, the size of std's disk
  // quota) plus the call that crossed it; past it new calls fail with CALL_LIMIT_EXCEEDED, which the
  // program may catch, and a replay refuses them the same way. Unbounded, any tenant's program could write
  // maxCalls × the result cap (about 1 GiB) into call_journal on every run, kept until retention.
  it(
    'one program cannot write much more into the call journal than a run may write to disk (64 MiB)',
    async () => {
      const code = [
        "import { ledger } from '@capabilities/ledger';",
        "const item = 'j'.repeat(1_000_000);",
        'let made = 0;',
        "let refused = '';",
        "for (let call = 0; call < 70 && refused === ''; call++) {",
        '  try { await ledger.peek({ item }); made++; } catch (error) { refused = String((error as { code?: string }).code); }',
        '}',
        'export default { made, refused };',
      ].join('\n');
      const run = await submitRun({ store, code, timeoutMs: LONG });
      expect(run).toMatchObject({ success: true, result: { refused: 'CALL_LIMIT_EXCEEDED' } });
      expect((run.result as { made: number }).made).toBeLessThan(70);
      const { rows } = await pool.query<{ bytes: string }>(
        'SELECT coalesce(sum(octet_length(outcome)), 0) AS bytes FROM agent_spaces.call_journal WHERE run_id = $1',
        [run.runId],
      );
      // At most the budget and the one call that crossed it.
      expect(Number(rows[0]?.bytes)).toBeLessThanOrEqual(64 * 1024 * 1024 + 1024 * 1024 + 64 * 1024);
    },
    LONG,
  );

  it(
    "a hostile MCP server's secrets, quoted in its errors, reach no row of the store: journal, events, DBOS's results",
    async () => {
      const code = [
        "import { leakInErrorResult, leakInRpcError } from '@capabilities/mcp-leaky';",
        'const seen: string[] = [];',
        'for (const call of [leakInRpcError, leakInErrorResult]) {',
        '  try { await call({}); } catch (error) { seen.push(String((error as Error).message)); console.log(String((error as Error).message)); }',
        '}',
        'export default seen;',
      ].join('\n');
      const run = await submitRun({ store, code, timeoutMs: LONG });
      expect(run.success).toBe(true);
      expect((run.result as string[]).length).toBe(2);
      // Every text column the run left behind, ours and DBOS's (workflow input and output, step outputs).
      const { rows } = await pool.query<{ text: string }>(
        `SELECT outcome AS text FROM agent_spaces.call_journal WHERE run_id = $1
       UNION ALL SELECT data FROM agent_spaces.run_events WHERE run_id = $1
       UNION ALL SELECT coalesce(output, '') || coalesce(error, '') || coalesce(inputs, '') FROM dbos.workflow_status WHERE workflow_uuid = $1
       UNION ALL SELECT coalesce(output, '') || coalesce(error, '') FROM dbos.operation_outputs WHERE workflow_uuid = $1`,
        [run.runId],
      );
      expect(rows.length).toBeGreaterThan(3);
      const stored = rows.map((row) => row.text).join('\n');
      expect(stored).toContain('[REDACTED: ');
      for (const secret of Object.values(LEAKY_SECRETS)) expect(stored).not.toContain(secret);
    },
    LONG,
  );

  // A planner task's submitter may name the model endpoint (`task --store --base-url`, submitTask's
  // model.baseURL). The worker sends its own model key only to its own endpoint (config, else
  // $AGENT_SPACES_BASE_URL, else OpenAI's); an endpoint the submitter names is called with no key.
  // Otherwise whoever can submit to the store could have the workers send their key to a server of
  // their choosing, as OpenAPI headers go only to the API's origin.
  it(
    'a task submitter cannot have the worker send its model key to an endpoint the submitter names',
    async () => {
      const workerKey = 'sk-attack4-worker-model-key-0f9e8d7c6b5a';
      const attacker = await startScriptedModelServer([callReply('finish', { summary: 'nothing to do' })]);
      closers.push(() => attacker.close());
      const saved = process.env.OPENAI_API_KEY;
      process.env.OPENAI_API_KEY = workerKey; // the worker's environment (it runs in this process)
      try {
        const result = await submitTask({ store, task: 'say hello', model: { baseURL: attacker.baseURL, model: 'scripted-model' } });
        expect(result.success).toBe(true);
      } finally {
        if (saved === undefined) delete process.env.OPENAI_API_KEY;
        else process.env.OPENAI_API_KEY = saved;
      }
      expect(attacker.requests.length).toBeGreaterThan(0);
      expect(JSON.stringify(attacker.requests.map((request) => request.headers))).not.toContain(workerKey);
    },
    LONG,
  );

  it(
    'a program whose logs, arguments and result hold NUL characters and lone surrogates runs to its end: every row takes them',
    async () => {
      const code = [
        "import { ledger } from '@capabilities/ledger';",
        "const odd = 'a\\u0000b\\ud800c';",
        'console.log(odd);',
        'const echoed = await ledger.peek({ item: odd });',
        'export default { odd, echoed };',
      ].join('\n');
      const run = await submitRun({ store, code, timeoutMs: LONG });
      expect(run).toMatchObject({ success: true, result: { odd: 'a\u0000b\ud800c', echoed: { item: 'a\u0000b\ud800c' } } });
      // The log line as any run gives it (a lone surrogate becomes U+FFFD on its way out of the sandbox).
      expect(run.logs.map((log) => log.message)).toEqual(['a\u0000b\ufffdc']);
    },
    LONG,
  );
});

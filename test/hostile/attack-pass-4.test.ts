/**
 * A fourth attacker's pass, over what a PostgreSQL store added on 2026-11-23 (issue 15): the studio on a
 * store (its inbox decides the store's approvals, its runs pane reads any run), A2A tasks, sessions and
 * traces in the store, retention, and `serve` replicas sharing a store (sealed approval rounds naming a
 * stored run, 2025 sessions in a table). Every case runs against a real PostgreSQL (one private cluster
 * for the file) with real servers and clients. As in the earlier passes: each `it.fails` is a finding
 * that still holds (its comment names severity, owner and the fix to make; turn it into a plain `it` once
 * fixed), each plain `it` an attack that is stopped, kept as a regression. Ids: S… the store's URL and
 * errors, T… the studio on a store, A… A2A tasks in the store, P… retention, V… serve on a store.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { Role, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../bridge/index.js';
import { createAgentRunner, loadAgent, openSpace, serveA2A, type AgentRunner, type RunningA2AServer } from '../../agents/index.js';
import type { AgentTaskOptions } from '../../agents/task-executor.js';
import { describeStore, openA2ATaskStores, openAgentSessionStore, openStoreMonitor, pruneStore, submitRun, type A2ATaskStores } from '../../durable/index.js';
import { getStoredApproval, requestStoredApproval } from '../../durable/approval-store.js';
import { appendRunEvent } from '../../durable/run-events.js';
import { createPool, ensureStoreSchema, type Pool } from '../../durable/store.js';
import { makeDurableSpace, type DurableSpace } from '../../durable/test-support/durable-space.js';
import { startPostgresCluster, type PostgresCluster } from '../../durable/test-support/postgres-cluster.js';
import { startStudio, type RunningStudio } from '../../studio/server/index.js';
import { ensureUiBuilt } from '../../studio/test-support/studio-space.js';
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

describe('attack pass 4: the store URL and the store errors', () => {
  // S1 (medium; fixed in durable/store-url.ts): describeStore masked the password only up to its first
  // "@". PostgreSQL's URL parser (pg-connection-string, WHATWG rules) takes everything up to the *last*
  // "@" of the authority as user info, so `postgres://app:open@Hunter2@db/x` connects with the password
  // "open@Hunter2" — and every message (the studio's page, `run --store`, the worker's notices, errors)
  // printed `postgres://app:***@Hunter2@db/x`: the password minus its first characters. The bridge's
  // redactor (errors, logs, traces) had the same rule for any URL's password (fixed in bridge/redact.ts).
  it('S1: a store password holding "@" is masked whole, in describeStore and on the studio page', async () => {
    const url = `postgres://postgres:open@${PASSWORD_TAIL}@127.0.0.1:${port}/s1_store`;
    const { parse } = await import('pg-connection-string');
    expect(parse(url).password).toBe(`open@${PASSWORD_TAIL}`); // what PostgreSQL is sent
    expect(describeStore(url)).not.toContain(PASSWORD_TAIL);
    expect(describeStore(url)).toBe(`postgres://postgres:***@127.0.0.1:${port}/s1_store`);
    // Other shapes stay as they were: a password-less URL is shown whole, query passwords masked.
    expect(describeStore(`postgres://127.0.0.1:${port}/db?user=u&password=${PASSWORD_TAIL}&application_name=a@b`)).not.toContain(PASSWORD_TAIL);
    expect(describeStore(`postgres://u@db.example:5432/spaces`)).toBe('postgres://u@db.example:5432/spaces');
    // The bridge's redactor (errors, logs, traces) read URL passwords the same way: up to the first "@".
    const redact = createRedactor({ secrets: [] });
    expect(redact(`the tool failed: cannot connect to ${url} (timeout)`)).toBe(`the tool failed: cannot connect to postgres://postgres:[REDACTED]@127.0.0.1:${port}/s1_store (timeout)`);

    // End to end: the studio on such a store (it connects: the cluster trusts loopback) never shows it.
    await cluster.createDatabase('s1_store');
    const space = await makeDurableSpace('attack4-s1');
    const studio = await startStudio({ openSpace, cwd: space.root, store: url, uiDir: await ensureUiBuilt() });
    closers.push(() => studio.close());
    const pool = await poolOn(url);
    await requestStoredApproval(pool, { runId: 's1-run', callKey: 'k1', capability: 'ledger', function: 'send', params: { item: 'x' }, message: 'Send x?' });
    const pages = await Promise.all(['/api/space', '/api/approvals', '/api/runs'].map(async (pathname) => {
      const response = await fetch(`${studio.origin}${pathname}`, { headers: { authorization: `Bearer ${studio.token}` } });
      expect(response.status, pathname).toBe(200);
      return response.text();
    }));
    expect(pages.join('\n')).toContain('postgres://postgres:***@127.0.0.1');
    expect(pages.join('\n')).not.toContain(PASSWORD_TAIL);
  }, LONG);

  it('a store that cannot be reached, or has no such database, is named without its password by every entry point', async () => {
    const secret = 'attack4-unreachable-pw';
    const urls = [`postgres://postgres:${secret}@127.0.0.1:${port}/no_such_database`, `postgres://postgres:${secret}@127.0.0.1:1/db`, `postgres://postgres@127.0.0.1:${port}/no_such_db?password=${secret}`];
    for (const url of urls) {
      const attempts: [string, () => Promise<unknown>][] = [
        ['openStoreMonitor', async () => (await openStoreMonitor(url)).close()],
        ['submitRun', () => submitRun({ store: url, code: 'export default 1;' })],
        ['pruneStore', () => pruneStore({ store: url, olderThanMs: 0 })],
        ['openA2ATaskStores', () => openA2ATaskStores(url)],
        ['openAgentSessionStore', () => openAgentSessionStore(url)],
      ];
      for (const [name, attempt] of attempts) {
        const error = await attempt().then(() => undefined, (thrown: unknown) => thrown as Error & { code?: string });
        expect(error?.code, `${name} ${url}`).toBe('STORE_UNAVAILABLE');
        // The message, and everything the error carries (its cause too), as a log would print it.
        const everything = `${error?.message} ${JSON.stringify(error, Object.getOwnPropertyNames(error))} ${String((error?.cause as Error | undefined)?.message)}`;
        expect(everything, `${name} ${url}`).not.toContain(secret);
      }
    }
  }, LONG);
});

describe('attack pass 4: the studio on a store, from another page and without its token', () => {
  let studio: RunningStudio;
  let pool: Pool;
  let space: DurableSpace;

  beforeAll(async () => {
    const store = await cluster.createDatabase('t_studio');
    space = await makeDurableSpace('attack4-studio');
    studio = await startStudio({ openSpace, cwd: space.root, store, uiDir: await ensureUiBuilt() });
    closers.push(() => studio.close());
    pool = await poolOn(store);
  }, LONG);

  /** A pending approval of some run in the store, as a worker creates it. */
  const pendingApproval = (item: string) =>
    requestStoredApproval(pool, { runId: `t-run-${item}`, callKey: `k-${item}`, capability: 'ledger', function: 'send', params: { item }, message: `Send ${item}?` });

  const api = (pathname: string, init: RequestInit & { token?: string | false } = {}) => {
    const { token = studio.token, headers, ...rest } = init;
    return fetch(`${studio.origin}${pathname}`, { ...rest, headers: { ...(token === false ? {} : { authorization: `Bearer ${token}` }), ...(headers as Record<string, string> | undefined) } });
  };
  const approve = (id: string, init: RequestInit & { token?: string | false } = {}) =>
    api(`/api/approvals/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approved: true }), ...init });

  it("decides no store approval and reads no stored run without the token, with a wrong one, from another origin, or as a form post", async () => {
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
      const sent = request(`${studio.origin}/api/approvals/${approval.id}`, { method: 'POST', headers: { host: 'evil.example', authorization: `Bearer ${studio.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      });
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
    const again = await api(`/api/approvals/${approval.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approved: false, reason: 'changed my mind' }) });
    expect(again.status).toBe(404);
    expect(await getStoredApproval(pool, approval.id)).toMatchObject({ status: 'approved' });
  });

  it('reads runs by id only: SQL and path tricks in a run id are refused before the store sees them', async () => {
    for (const id of ["x' OR '1'='1", 'x%27%20OR%201%3D1--', '..%2F..%2Fetc', '%00']) {
      const response = await api(`/api/runs/${encodeURIComponent(id)}`);
      expect([400, 404], id).toContain(response.status);
      expect(await response.text(), id).not.toMatch(/syntax error|postgres/i);
    }
  });
});

describe('attack pass 4: A2A tasks in the store, from another tenant', () => {
  let server: RunningA2AServer;
  let url: string;
  const contexts: (string | undefined)[] = [];

  beforeAll(async () => {
    const store = await cluster.createDatabase('a_tasks');
    const dir = await makeTempDir('attack4-a2a');
    await writeFile(path.join(dir, 'tsagent.json'), JSON.stringify({ metadata: { name: 'Echo Desk', version: '1.0.0', description: 'Echoes', skills: [{ id: 'echo', name: 'Echo', description: 'Echoes' }] }, providers: { openai: { OPENAI_API_KEY: 'attack4-agent-key' } } }));
    // A real runner whose sessions echo the prompt (no model): what the test reads is the store's scoping.
    const runner: AgentRunner = createAgentRunner(await loadAgent(dir), {
      outDir: path.join(dir, 'out'),
      executeTask: async (task: string, options: AgentTaskOptions) => {
        contexts.push(options.context);
        return { success: true, finalSummary: `echo: ${task}` };
      },
    });
    const stores: A2ATaskStores = await openA2ATaskStores(store);
    server = await serveA2A([runner], { port: 0, taskStores: stores });
    closers.push(() => runner.close(), () => stores.close(), () => server.close());
    url = server.agents[0]?.url ?? '';
  }, LONG);

  const message = (text: string, contextId = ''): Message => ({ messageId: randomUUID(), contextId, taskId: '', role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: {}, extensions: [], referenceTaskIds: [] });

  it("reads and continues no task of another tenant, whatever its tenant, context id or page token says (no SQL through them)", async () => {
    const client = await new ClientFactory().createFromUrl(url);
    const secretTask = (await client.sendMessage({ tenant: 'acme', message: message('the acme launch code is 0000'), configuration: undefined, metadata: {} })) as Task;
    const list = (tenant: string, extra: { contextId?: string; pageToken?: string } = {}) =>
      client.listTasks({ tenant, contextId: extra.contextId ?? '', status: 0, pageSize: 50, pageToken: extra.pageToken ?? '', historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: true });
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
    const intruder = (await client.sendMessage({ tenant: 'intruder', message: message('what was said before?', secretTask.contextId), configuration: undefined, metadata: {} })) as Task;
    expect(intruder.contextId).toBe(secretTask.contextId);
    expect(contexts).toEqual([undefined]);
    expect(JSON.stringify(await client.getTask({ tenant: 'intruder', id: intruder.id }))).not.toContain('launch code');
    // acme itself still reads its task.
    expect((await client.getTask({ tenant: 'acme', id: secretTask.id })).id).toBe(secretTask.id);
  }, LONG);

  // A1 (low; owner: persistence, durable/a2a-task-store.ts): a NUL character in a tenant, context id or
  // task id reaches PostgreSQL as a query parameter, which refuses it: the client is answered with the
  // database's own error (-32603 'invalid byte sequence for encoding "UTF8": 0x00') and the SDK prints the
  // pg error with its stack on the server's stderr for each such request. Nothing is read or written, no
  // session runs. Fix: the store refuses such ids before the query (RequestMalformedError naming the
  // field: ids are text without NUL), as decodePageToken does for a bad page token.
  it.fails('A1: a NUL in a tenant or context id is refused as a malformed request, not answered with a database error', async () => {
    const client = await new ClientFactory().createFromUrl(url);
    const failures = await Promise.all([
      client.getTask({ tenant: 'acme\u0000', id: randomUUID() }).then(() => 'answered', (error: unknown) => String(error)),
      client.sendMessage({ tenant: '', message: message('hello', 'context\u0000'), configuration: undefined, metadata: {} }).then(() => 'answered', (error: unknown) => String(error)),
    ]);
    for (const failure of failures) {
      expect(failure).not.toMatch(/byte sequence|UTF8|0x00/);
      expect(failure).toMatch(/tenant|context/i);
    }
  });
});

describe('attack pass 4: retention keeps what it promised', () => {
  it('a run still queued keeps its events and pending approval even when an old end event says it ended; a finished run goes', async () => {
    const store = await cluster.createDatabase('p_prune');
    const pool = await poolOn(store);
    // Queued with no worker alive: DBOS holds it as ENQUEUED. The submitter leaves; the run stays.
    const leave = new AbortController();
    let queued = '';
    const submitted = submitRun({ store, code: 'export default 1;', onNoWorker: (runId) => {
      queued = runId;
      leave.abort();
    }, signal: leave.signal }).catch(() => undefined);
    await submitted;
    expect(queued).not.toBe('');
    // Rows that claim it ended a day ago (a worker of an earlier attempt, a replayed id): retention must ask DBOS.
    await appendRunEvent(pool, queued, { kind: 'end', result: { success: true } });
    await requestStoredApproval(pool, { runId: queued, callKey: 'k', capability: 'ledger', function: 'send', params: {}, message: 'Send?' });
    // A run that really ended, to show the prune did run: an end event and a decided approval, no DBOS row left running.
    await appendRunEvent(pool, 'p-finished-run', { kind: 'end', result: { success: true } });
    await pool.query(`UPDATE agent_spaces.run_events SET created_at = now() - interval '1 day'`);
    const report = await pruneStore({ store, olderThanMs: 60_000 });
    expect(report?.runs).toBe(1);
    const events = await pool.query<{ run_id: string }>('SELECT run_id FROM agent_spaces.run_events ORDER BY seq');
    expect(events.rows.map((row) => row.run_id)).toEqual([queued]);
    const approvals = await pool.query<{ status: string }>('SELECT status FROM agent_spaces.approvals WHERE run_id = $1', [queued]);
    expect(approvals.rows).toEqual([{ status: 'pending' }]);
  }, LONG);
});

// `serveSpace` with a store: two replicas on two ports share one PostgreSQL store (a private cluster this
// file starts) and one state key, as behind a load balancer; a real worker (startWorker, in this process)
// runs the programs. Real SDK clients of both eras reach the replicas through a fetch that plays the
// load balancer: it sends each request to the replica the test says, and records where each went.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { startWorker, type DurableWorker } from '../worker/index.js';
import { makeDurableSpace, type DurableSpace } from '../store/test-support/durable-space.js';
import { startPostgresCluster, type PostgresCluster } from '../store/test-support/postgres-cluster.js';
import { createSpace } from '../space/index.js';
import { serveSpace, type RunningServer } from './serve.js';

const LONG = 600_000;
const STATE_KEY = randomBytes(32).toString('hex');
/** A program that needs one approval; `parcel` is replaced per test. */
const SEND =
  "import { ledger } from '@capabilities/ledger';\nawait ledger.record({ item: 'before' });\nconsole.log('about to send');\nawait ledger.send({ item: 'parcel' });\nexport default 'parcel';";

let cluster: PostgresCluster;
let space: DurableSpace;
let store: string;
let worker: DurableWorker;
const replicas: RunningServer[] = [];
const replicaLogs: string[][] = [];

/**
 * A load balancer in front of the replicas: `route` picks the replica of each request by its index and
 * its JSON-RPC method (`response` for a client's answer to a server request, the HTTP method for a body-less GET or DELETE).
 */
function balancer(route: (index: number, method: string | undefined) => number): {
  fetch: typeof fetch;
  sent: { replica: number; method: string | undefined }[];
} {
  const sent: { replica: number; method: string | undefined }[] = [];
  return {
    sent,
    fetch: async (input, init) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
      const method = body === undefined ? init?.method : (body.method ?? 'response');
      const replica = route(sent.length, method);
      sent.push({ replica, method });
      const url = replicas[replica]?.url ?? '';
      return fetch(url, init);
    },
  };
}

function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((block) => block.text ?? '')
    .join('\n');
}

/** A 2026-07-28 `execute_code` request as raw HTTP (no SDK): `extra` adds params such as requestState. */
async function rawExecuteCode(
  url: string,
  code: string,
  extra: Record<string, unknown> = {},
): Promise<{
  result?: { requestState?: string; inputRequests?: Record<string, unknown>; isError?: boolean; content?: { text: string }[] };
}> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'execute_code',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'execute_code',
        arguments: { code },
        ...extra,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
    }),
  });
  return (await response.json()) as Awaited<ReturnType<typeof rawExecuteCode>>;
}

async function startReplica(storeUrl: string): Promise<RunningServer> {
  const logs: string[] = [];
  replicaLogs.push(logs);
  const running = await serveSpace({
    cwd: space.root,
    http: { port: 0 },
    store: storeUrl,
    stateKey: STATE_KEY,
    log: (line) => logs.push(line),
  });
  replicas.push(running);
  return running;
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  space = await makeDurableSpace('serve-store');
  // The ledger capability runs in this process (the worker's bridge): it writes where the test reads.
  process.env.LEDGER_DIR = space.ledgerDir;
  store = await cluster.createDatabase('serve_store');
  worker = await startWorker({
    store,
    config: await loadConfig({ cwd: space.root }),
    openSpace: createSpace,
    executorId: 'serve-store-worker',
  });
  // One after the other: the worker built the capabilities, the replicas find them built.
  await startReplica(store);
  await startReplica(store);
}, LONG);

afterAll(async () => {
  for (const replica of replicas) await replica.close().catch(() => undefined);
  await worker?.close();
  await cluster?.stop();
});

describe('serve replicas sharing a store', () => {
  it(
    'a 2026-07-28 client whose approval retry reaches the other replica gets the result of the same run',
    async () => {
      const asked: string[] = [];
      // Round robin: consecutive requests go to alternate replicas, so the retry of execute_code goes to the other one.
      let calls = 0;
      const lb = balancer((_index, method) => (method === 'tools/call' ? calls++ % 2 : 0));
      const client = new Client(
        { name: 'modern', version: '1' },
        { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      client.setRequestHandler('elicitation/create', (request) => {
        asked.push(String(request.params.message));
        return { action: 'accept', content: { approve: true } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(replicas[0]?.url ?? ''), { fetch: lb.fetch }));
      try {
        const run = await client.callTool({ name: 'execute_code', arguments: { code: SEND } }, { timeout: LONG });
        expect(run.isError).toBeFalsy();
        expect(run.structuredContent).toMatchObject({ success: true, result: 'parcel' });
        expect(asked).toHaveLength(1);
        expect(asked[0]).toContain('Send parcel?');
        // The first call started the run on replica 0 and was answered input_required; the retry went to replica 1.
        expect(lb.sent.filter((request) => request.method === 'tools/call').map((request) => request.replica)).toEqual([0, 1]);
        expect(space.effects()).toEqual(['record before', 'send parcel']);
        // This space's config sets no approval deadline: each replica warns that unanswered runs wait for ever.
        expect(replicaLogs[0]?.join('\n')).toContain('durable.approvalDeadlineMs is not set');
      } finally {
        await client.close();
      }
    },
    LONG,
  );

  it(
    'a 2025-11-25 session initialized on one replica goes on at the other, which asks its approval by elicitation',
    async () => {
      const asked: string[] = [];
      // initialize reaches replica 0; every later request replica 1 (the balancer moved the client).
      const lb = balancer((index) => (index === 0 ? 0 : 1));
      const client = new LegacyClient({ name: 'legacy', version: '1' }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message);
        return { action: 'accept', content: { approve: true } };
      });
      const transport = new LegacyHttpTransport(new URL(replicas[0]?.url ?? ''), { fetch: lb.fetch });
      await client.connect(transport);
      try {
        expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
        expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['execute_code', 'get_types', 'search_tools']);
        const code = SEND.replaceAll("'parcel'", "'letter'");
        const run = await client.callTool({ name: 'execute_code', arguments: { code } }, undefined, { timeout: LONG });
        expect(run.structuredContent).toMatchObject({ success: true, result: 'letter' });
        expect(asked).toHaveLength(1);
        expect(asked[0]).toContain('Send letter?');
        expect(lb.sent[0]).toMatchObject({ replica: 0, method: 'initialize' });
        expect(lb.sent.slice(1).every((request) => request.replica === 1)).toBe(true);
        expect(replicaLogs[1]?.join('\n')).toContain(`MCP session ${transport.sessionId ?? ''}: taken up from another replica`);
      } finally {
        await transport.terminateSession();
        await client.close();
      }
    },
    LONG,
  );

  it(
    "reads a large result's pages on either replica: one that did not run it makes them again from the store",
    async () => {
      const BIG = "for (let i = 0; i < 300; i++) console.log(String(i).padEnd(1000, '.'));\nexport default 'big';";
      const pageTexts = async (client: Client | LegacyClient, uri: string, pages: number): Promise<string[]> => {
        const texts: string[] = [];
        for (let page = 1; page <= pages; page++)
          texts.push(
            (((await client.readResource({ uri: uri.replace(/\/1$/, `/${page}`) })).contents[0] ?? {}) as { text?: string }).text ?? '',
          );
        return texts;
      };
      // 2026-07-28 (no session): the call on replica 0, the pages read from replica 1, then from replica 0.
      let toSecond = false;
      const modernLb = balancer(() => (toSecond ? 1 : 0));
      const modern = new Client({ name: 'pages-modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await modern.connect(new StreamableHTTPClientTransport(new URL(replicas[0]?.url ?? ''), { fetch: modernLb.fetch }));
      try {
        const run = await modern.callTool({ name: 'execute_code', arguments: { code: BIG } }, { timeout: LONG });
        const { uri, pages } = (run.structuredContent as { resultPages: { uri: string; pages: number } }).resultPages;
        expect(pages).toBeGreaterThan(1);
        toSecond = true;
        const elsewhere = await pageTexts(modern, uri, pages);
        toSecond = false;
        const here = await pageTexts(modern, uri, pages);
        expect(elsewhere).toEqual(here);
        expect(elsewhere.at(-1)).toMatch(/299\.+\nResult: "big"/);
        expect(modernLb.sent.filter((request) => request.method === 'resources/read').map((request) => request.replica)).toEqual([
          ...Array(pages).fill(1),
          ...Array(pages).fill(0),
        ]);
        // A page past the end is refused on the replica that remakes it too.
        toSecond = true;
        await expect(modern.readResource({ uri: uri.replace(/\/1$/, `/${pages + 1}`) })).rejects.toThrow(/does not exist/);
      } finally {
        await modern.close();
      }
      // 2025-11-25: a session's pages, read on the other replica, are the session's only.
      const legacyLb = balancer((index) => (index <= 2 ? 0 : 1));
      const legacy = new LegacyClient({ name: 'pages-legacy', version: '1' });
      const transport = new LegacyHttpTransport(new URL(replicas[0]?.url ?? ''), { fetch: legacyLb.fetch });
      await legacy.connect(transport);
      const stranger = new LegacyClient({ name: 'pages-stranger', version: '1' });
      const strangerTransport = new LegacyHttpTransport(new URL(replicas[1]?.url ?? ''));
      await stranger.connect(strangerTransport);
      try {
        const run = await legacy.callTool({ name: 'execute_code', arguments: { code: BIG.replace("'big'", "'bigger'") } }, undefined, {
          timeout: LONG,
        });
        const { uri, pages } = (run.structuredContent as { resultPages: { uri: string; pages: number } }).resultPages;
        const texts = await pageTexts(legacy, uri, pages);
        expect(texts.at(-1)).toMatch(/Result: "bigger"/);
        expect(legacyLb.sent.at(-1)?.replica).toBe(1);
        await expect(stranger.readResource({ uri: uri.replace(/\/1$/, '/2') })).rejects.toThrow(/belongs to another session/);
      } finally {
        await transport.terminateSession();
        await legacy.close();
        await strangerTransport.terminateSession();
        await stranger.close();
      }
    },
    LONG,
  );

  it(
    'drops an approval answer that reaches a replica other than the one that asked (it must not decide another call of that number); the approval waits in the store',
    async () => {
      // Everything to replica 1, except the client's answers, which go to replica 0.
      const lb = balancer((_index, method) => (method === 'response' ? 0 : 1));
      const asked: string[] = [];
      const client = new LegacyClient({ name: 'legacy', version: '1' }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message);
        return { action: 'accept', content: { approve: true } };
      });
      const transport = new LegacyHttpTransport(new URL(replicas[1]?.url ?? ''), { fetch: lb.fetch });
      await client.connect(transport);
      const { openApprovals } = await import('../store/index.js');
      const approvals = await openApprovals(store);
      try {
        const running = client.callTool({ name: 'execute_code', arguments: { code: SEND.replaceAll("'parcel'", "'box'") } }, undefined, {
          timeout: LONG,
        });
        await expect
          .poll(() => replicaLogs[0]?.join('\n') ?? '', { timeout: LONG })
          .toContain(`MCP session ${transport.sessionId ?? ''}: dropped an answer to a request this replica did not send`);
        expect(asked).toHaveLength(1);
        const pending = (await approvals.list()).filter((approval) => JSON.stringify(approval.params).includes('box'));
        expect(pending).toHaveLength(1);
        await approvals.decide(pending[0]?.id ?? '', { approved: false, reason: 'decided in the store' });
        const run = await running;
        expect(run.structuredContent).toMatchObject({ success: false, error: { message: expect.stringMatching(/decided in the store/) } });
        expect(space.effects()).not.toContain('send box');
      } finally {
        await approvals.close();
        await transport.terminateSession();
        await client.close();
      }
    },
    LONG,
  );

  it(
    'a session closed on one replica is gone on the other too',
    async () => {
      const lb = balancer((index) => index % 2);
      const client = new LegacyClient({ name: 'legacy', version: '1' });
      const transport = new LegacyHttpTransport(new URL(replicas[0]?.url ?? ''), { fetch: lb.fetch });
      await client.connect(transport);
      const sessionId = transport.sessionId ?? '';
      await client.listTools();
      await transport.terminateSession();
      await client.close();
      for (const replica of replicas) {
        const response = await fetch(replica.url ?? '', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        });
        expect(response.status).toBe(404);
      }
    },
    LONG,
  );

  it(
    'refuses a forged requestState, and a 2026-07-28 client without elicitation waits for a decision in the store',
    async () => {
      const body = await rawExecuteCode(replicas[1]?.url ?? '', SEND, {
        requestState: 'v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      });
      expect(body.result?.isError).toBe(true);
      expect(body.result?.content?.[0]?.text).toMatch(/not sealed by a server of this store/);

      const { openApprovals } = await import('../store/index.js');
      const approvals = await openApprovals(store);
      const client = new Client({ name: 'no-elicitation', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(replicas[1]?.url ?? '')));
      try {
        const running = client.callTool(
          { name: 'execute_code', arguments: { code: SEND.replaceAll("'parcel'", "'crate'") } },
          { timeout: LONG },
        );
        // The approval waits in the store; an operator denies it there (agent-spaces approvals does the same).
        let pending: Awaited<ReturnType<typeof approvals.list>> = [];
        await expect
          .poll(
            async () => (pending = (await approvals.list()).filter((approval) => JSON.stringify(approval.params).includes('crate'))).length,
            { timeout: LONG },
          )
          .toBe(1);
        await approvals.decide(pending[0]?.id ?? '', { approved: false, reason: 'not today' });
        const run = await running;
        expect(run.structuredContent).toMatchObject({ success: false, error: { message: expect.stringMatching(/not today/) } });
        expect(space.effects()).not.toContain('send crate');
      } finally {
        await client.close();
        await approvals.close();
      }
    },
    LONG,
  );
});

describe('serve with a store, a run deleted by retention', () => {
  it(
    'refuses a retry whose run is no longer in the store, and does not run the program again',
    async () => {
      const code = SEND.replaceAll("'parcel'", "'pallet'");
      const call = (requestState?: string, inputResponses?: Record<string, unknown>) =>
        rawExecuteCode(replicas[0]?.url ?? '', code, requestState === undefined ? {} : { requestState, inputResponses });
      const first = await call();
      const requestState = first.result?.requestState ?? '';
      const approvalIds = Object.keys(first.result?.inputRequests ?? {});
      expect(requestState).not.toBe('');
      expect(approvalIds).toHaveLength(1);
      // Retention deletes the run's rows (as `store prune` would once it ended): here, by hand.
      const { default: pg } = await import('pg');
      const db = new pg.Client({ connectionString: store });
      await db.connect();
      try {
        const { rows } = await db.query<{ run_id: string }>('SELECT run_id FROM agent_spaces.approvals WHERE id = $1', [approvalIds[0]]);
        await db.query('DELETE FROM agent_spaces.run_events WHERE run_id = $1', [rows[0]?.run_id]);
      } finally {
        await db.end();
      }
      const retry = await call(requestState, { [approvalIds[0] ?? '']: { action: 'accept', content: { approve: true } } });
      expect(retry.result?.isError).toBe(true);
      expect(retry.result?.content?.[0]?.text).toMatch(/no longer in the store/);
      expect(space.effects()).not.toContain('send pallet');
      // (Here the run itself still waits on the worker, its rows deleted under it: deny it, so it ends.)
      const { openApprovals } = await import('../store/index.js');
      const approvals = await openApprovals(store);
      await approvals.decide(approvalIds[0] ?? '', { approved: false, reason: 'test over' }).finally(() => approvals.close());
    },
    LONG,
  );
});

describe('serve with a store and no worker', () => {
  it(
    'tells the client no worker is running, and queues nothing',
    async () => {
      const empty = await cluster.createDatabase('serve_store_no_worker');
      const replica = await startReplica(empty);
      const client = new Client(
        { name: 'modern', version: '1' },
        { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(replica.url ?? '')));
      const legacy = new LegacyClient({ name: 'legacy', version: '1' });
      await legacy.connect(new LegacyHttpTransport(new URL(replica.url ?? '')));
      try {
        for (const run of [
          await client.callTool({ name: 'execute_code', arguments: { code: 'export default 1;' } }),
          await legacy.callTool({ name: 'execute_code', arguments: { code: 'export default 1;' } }),
        ]) {
          expect(run.isError).toBe(true);
          expect(textOf(run)).toMatch(/no worker is running for the store .*start `agent-spaces worker`/);
        }
        const { default: pg } = await import('pg');
        const admin = new pg.Client({ connectionString: empty });
        await admin.connect();
        try {
          // Nothing was enqueued: the replica prepared the store (DBOS's tables), no run is in it.
          const { rows } = await admin.query<{ count: string }>('SELECT count(*) AS count FROM dbos.workflow_status');
          expect(rows[0]?.count).toBe('0');
        } finally {
          await admin.end();
        }
      } finally {
        await client.close();
        await legacy.close();
      }
    },
    LONG,
  );
});

/**
 * `@capabilities/session` through a store-backed `serve --http` (programs submitted to a durable worker,
 * state in PostgreSQL) with a real MCP client: one MCP session's later programs see what its earlier
 * ones kept even after the serving process it talked to was closed and another replica took its
 * requests; another session sees none of it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { serveSpace, type RunningServer } from '../../server/serve.js';
import { openStore } from '../../store/index.js';
import { startPostgresCluster, type PostgresCluster } from '../../store/test-support/postgres-cluster.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { startWorker, type DurableWorker } from '../../worker/index.js';
import { createSpace } from '../index.js';

const LONG = 600_000;
const STATE_KEY = 'a'.repeat(64);
const COUNT_VISIT = `import { get, set } from '@capabilities/session';
const visits = ((await get({ key: 'visits' })) as number | null) ?? 0;
await set({ key: 'visits', value: visits + 1 });
export default visits + 1;`;

let cluster: PostgresCluster;
let store: string;
let root: string;
let worker: DurableWorker;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  store = await cluster.createDatabase('session_serve');
  root = await makeTempDir('session-serve-store');
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
  worker = await startWorker({ store, config: await loadConfig({ cwd: root }), openSpace: createSpace, executorId: 'session-worker' });
}, LONG);

afterAll(async () => {
  await worker?.close();
  await cluster?.stop();
});

const replica = (): Promise<RunningServer> => serveSpace({ cwd: root, http: { port: 0 }, store, stateKey: STATE_KEY });

async function execute(client: Client, code: string): Promise<unknown> {
  return (await client.callTool({ name: 'execute_code', arguments: { code } })).structuredContent;
}

describe('@capabilities/session in a store-backed serve', () => {
  it(
    "keeps an MCP session's state in the store across the serving process being replaced",
    async () => {
      let current = await replica();
      // The client's requests go to whichever replica serves now (a load balancer in front of them).
      const transport = new StreamableHTTPClientTransport(new URL('http://balancer.invalid/mcp'), {
        fetch: (input, init) => fetch(current.url ?? '', init),
      });
      const client = new Client({ name: 'session-store-test', version: '1' });
      await client.connect(transport);
      const other = new Client({ name: 'other-session', version: '1' });
      try {
        expect(await execute(client, COUNT_VISIT)).toMatchObject({ success: true, result: 1 });
        expect(await execute(client, COUNT_VISIT)).toMatchObject({ success: true, result: 2 });
        const first = current;
        current = await replica();
        await first.close();
        expect(await execute(client, COUNT_VISIT)).toMatchObject({ success: true, result: 3 });
        const sessionId = transport.sessionId ?? '';
        const opened = await openStore(store);
        try {
          expect(await opened.sessionState.get(`mcp:${sessionId}`, 'visits', Date.now())).toBe('3');
        } finally {
          await opened.close();
        }
        await other.connect(new StreamableHTTPClientTransport(new URL(current.url ?? '')));
        expect(await execute(other, COUNT_VISIT)).toMatchObject({ success: true, result: 1 });
      } finally {
        await client.close().catch(() => undefined);
        await other.close().catch(() => undefined);
        await current.close();
      }
    },
    LONG,
  );
});

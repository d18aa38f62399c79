/**
 * Workers started together, and workers that cannot start (issue 28 item 8, issue 29 item 9), against a
 * real PostgreSQL (a private cluster for the file) and real `agent-spaces worker` processes:
 * - any number of workers started at once on a fresh store all come up (the engine's schema set-up is
 *   serialised like ours; it was `deadlock detected`, `duplicate key … pg_type_typname_nsp_index`,
 *   `tuple concurrently updated` for one of two in 6 of 8 tries), and then run work;
 * - a worker that cannot start exits non-zero at once, saying why (a failed start left what it opened
 *   keeping the process alive, so no supervisor restarted it);
 * - no worker prints pg's "client.query() when the client is already executing a query" deprecation
 *   (a query issued on a client that was still running one: it breaks with pg 9).
 */
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { submitRun } from '../../store/index.js';
import { makeDurableSpace, startCli } from '../../store/test-support/durable-space.js';
import { useStoreForFile } from '../../store/test-support/worker-processes.js';

const testStore = useStoreForFile();
const { workers } = testStore;

const LONG = 600_000;
const PG_DEPRECATION = /already executing a query|DeprecationWarning/;

describe('workers started together on a fresh store', () => {
  it(
    'all come up, print no pg deprecation, and then take runs',
    async () => {
      const space = await makeDurableSpace('workers-together');
      const store = await testStore.cluster.createDatabase('together');
      const started = [workers.start(space, store), workers.start(space, store), workers.start(space, store)];
      await Promise.all(started.map((worker) => workers.ready(worker)));
      for (const worker of started) {
        expect(worker.child.exitCode).toBeNull();
        expect(worker.stderr()).not.toMatch(/deadlock detected|duplicate key|tuple concurrently updated|dbos:/);
      }
      // Healthy afterwards: runs are taken and finish.
      const results = await Promise.all(
        ['a', 'b', 'c', 'd'].map((item) =>
          // No type-check: on a loaded machine it may take longer than its own limit, and it is not what this tests.
          submitRun({
            store,
            check: false,
            code: `import { ledger } from '@capabilities/ledger';\nexport default (await ledger.record({ item: '${item}' })).item;`,
            timeoutMs: LONG,
          }),
        ),
      );
      expect(results.map((result) => result.error)).toEqual([undefined, undefined, undefined, undefined]);
      expect(results.map((result) => result.result)).toEqual(['a', 'b', 'c', 'd']);
      expect(space.effects().sort()).toEqual(['record a', 'record b', 'record c', 'record d']);
      for (const worker of started) expect(worker.stderr()).not.toMatch(PG_DEPRECATION);
    },
    LONG,
  );
});

describe('a worker that cannot start', () => {
  it(
    'exits non-zero at once, saying why, when the store cannot be reached',
    async () => {
      const space = await makeDurableSpace('worker-unreachable');
      // A port nobody listens on.
      const closed = await unusedPort();
      const worker = workers.track(
        startCli(['worker', '--store', `postgres://postgres@127.0.0.1:${closed}/nowhere`], { cwd: space.root, env: space.env }),
      );
      const code = await worker.exited;
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      expect(worker.stderr()).toMatch(/store postgres:\/\/postgres@127\.0\.0\.1:\d+\/nowhere cannot be reached/);
    },
    LONG,
  );

  it(
    'exits non-zero at once, saying why, when the store is not a usable database',
    async () => {
      const space = await makeDurableSpace('worker-missing-db');
      const url = new URL(testStore.cluster.url);
      url.pathname = '/no_such_database';
      const worker = workers.track(startCli(['worker', '--store', url.href], { cwd: space.root, env: space.env }));
      const code = await worker.exited;
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      expect(worker.stderr()).toMatch(/cannot be reached: .*no_such_database/);
    },
    LONG,
  );

  it(
    'exits non-zero at once when the server hangs up mid-handshake, and a healthy worker still starts',
    async () => {
      // A "server" that accepts and closes every connection: the start fails after sockets were opened.
      const hangUp: Server = createServer((socket) => socket.destroy());
      await new Promise<void>((resolve) => hangUp.listen(0, '127.0.0.1', resolve));
      try {
        const address = hangUp.address();
        const port = typeof address === 'object' && address !== null ? address.port : 0;
        const space = await makeDurableSpace('worker-hang-up');
        const worker = workers.track(
          startCli(['worker', '--store', `postgres://postgres@127.0.0.1:${port}/db`], { cwd: space.root, env: space.env }),
        );
        const code = await worker.exited;
        expect(code).not.toBe(0);
        expect(code).not.toBeNull();
        expect(worker.stderr()).toMatch(/cannot be reached/);
        const healthy = workers.start(space, await testStore.cluster.createDatabase('after_hang_up'));
        await workers.ready(healthy);
        expect(healthy.stderr()).not.toMatch(PG_DEPRECATION);
      } finally {
        await new Promise<void>((resolve) => hangUp.close(() => resolve()));
      }
    },
    LONG,
  );
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 1;
}

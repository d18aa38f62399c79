// The worker's wake-up (worker/queue-wake.ts) against a real PostgreSQL and DBOS's own queue runner:
// the worker polls the queue only every ten minutes here, so a run it takes at all was taken because
// its submitter's notification, or the end of another run, woke it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { createSpace } from '../space/index.js';
import { submitRun } from '../store/index.js';
import { makeDurableSpace, type DurableSpace } from '../store/test-support/durable-space.js';
import { startPostgresCluster, type PostgresCluster } from '../store/test-support/postgres-cluster.js';
import { startWorker, type DurableWorker } from './index.js';
import { installQueueWake } from './queue-wake.js';

const LONG = 300_000;
const TEN_MINUTES = 600_000;

let cluster: PostgresCluster | undefined;
let space: DurableSpace;
let store: string;
let worker: DurableWorker | undefined;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  space = await makeDurableSpace('queue-wake');
  process.env.LEDGER_DIR = space.ledgerDir;
  store = await cluster.createDatabase('queue_wake');
  worker = await startWorker({
    store,
    config: await loadConfig({ cwd: space.root }),
    openSpace: createSpace,
    concurrency: 1,
    queuePollMs: TEN_MINUTES,
  });
}, LONG);

afterAll(async () => {
  await worker?.close();
  await cluster?.stop();
});

const program = (item: string): string =>
  `import { ledger } from '@capabilities/ledger';\nawait ledger.record({ item: '${item}' });\nexport default '${item}';`;

describe('a worker woken by notifications, its queue polled every ten minutes', () => {
  it(
    'takes a first run (at its first look at the queue, when it finds it)',
    async () => {
      const result = await submitRun({ store, code: program('first'), check: false });
      expect(result.result).toBe('first');
    },
    LONG,
  );

  it(
    'takes a run submitted later, when no look at the queue is due (its submitter notifies the queue channel)',
    async () => {
      const result = await submitRun({ store, code: program('second'), check: false });
      expect(result.error).toBeUndefined();
      expect(result.result).toBe('second');
    },
    LONG,
  );

  it(
    'at its concurrency limit (1), takes each further queued run when its run before ends',
    async () => {
      const items = ['a', 'b', 'c', 'd'];
      const results = await Promise.all(items.map((item) => submitRun({ store, code: program(item), check: false })));
      expect(results.map((result) => result.result)).toEqual(items);
      const effects = (await readFile(path.join(space.ledgerDir, 'effects.log'), 'utf8')).trim().split('\n');
      expect(effects.filter((line) => items.some((item) => line === `record ${item}`)).sort()).toEqual(
        items.map((item) => `record ${item}`),
      );
    },
    LONG,
  );
});

describe('installQueueWake', () => {
  it('refuses a second hook while the worker holds one: the runner is wrapped once', () => {
    // The worker's hook is installed: a second one would wrap the wrapper, and is not needed.
    expect(() => installQueueWake('agent-spaces-runs')).toThrow(/already/);
  });
});

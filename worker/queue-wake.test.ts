// The worker's wake-up (worker/queue-wake.ts) against a real PostgreSQL and DBOS's own queue runner:
// the worker polls the queue only every ten minutes here, so a run it takes at all was taken because
// its submitter's notification, or the end of another run, woke it.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { createSpace } from '../space/index.js';
import { openStoreConnection, submitRun, type StoreConnection } from '../store/index.js';
import { APPLICATION_NAME, RUN_QUEUE, RUN_WORKFLOW } from '../store/internals.js';
import { makeDurableSpace, type DurableSpace } from '../store/test-support/durable-space.js';
import { startPostgresCluster, type PostgresCluster } from '../store/test-support/postgres-cluster.js';
import { applicationVersion } from './app-version.js';
import { canClaimDirectly, claimRun } from './direct-claim.js';
import { startWorker, type DurableWorker } from './index.js';
import { installQueueWake, queueWakeCounts } from './queue-wake.js';

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
    'takes a run submitted later, when no look at the queue is due: its queued row notifies the worker, which claims it itself, not through a poll',
    async () => {
      const before = queueWakeCounts();
      const result = await submitRun({ store, code: program('second'), check: false });
      expect(result.error).toBeUndefined();
      expect(result.result).toBe('second');
      // Taken by a claim, not by a poll (a poll's run is not counted as claimed).
      expect(queueWakeCounts()?.claims).toBe((before?.claims ?? 0) + 1);
    },
    LONG,
  );

  it(
    'at its concurrency limit (1), takes each further queued run when its run before ends, one at a time',
    async () => {
      const items = ['a', 'b', 'c', 'd'];
      const results = await Promise.all(items.map((item) => submitRun({ store, code: program(item), check: false })));
      expect(results.map((result) => result.result)).toEqual(items);
      const effects = (await readFile(path.join(space.ledgerDir, 'effects.log'), 'utf8')).trim().split('\n');
      expect(effects.filter((line) => items.some((item) => line === `record ${item}`)).sort()).toEqual(
        items.map((item) => `record ${item}`),
      );
      // The worker's limit held, whether a run was claimed on its notification or by a poll: no two ran at once.
      const connection = await openStoreConnection(store, 1);
      try {
        const { rows } = await connection.pool.query<{ started: string; ended: string }>(
          `SELECT started_at_epoch_ms AS started, updated_at AS ended FROM dbos.workflow_status
            WHERE workflow_uuid = ANY($1) ORDER BY started_at_epoch_ms`,
          [results.map((result) => result.runId)],
        );
        expect(rows).toHaveLength(items.length);
        for (let index = 1; index < rows.length; index += 1)
          expect(Number(rows[index]?.started)).toBeGreaterThanOrEqual(Number(rows[index - 1]?.ended));
      } finally {
        await connection.close();
      }
    },
    LONG,
  );
});

describe("a direct claim (worker/direct-claim.ts) against DBOS's own rows", () => {
  let connection: StoreConnection;
  beforeAll(async () => {
    connection = await openStoreConnection(store, 2);
  }, LONG);
  afterAll(async () => {
    await connection.close();
  });

  /** Queues a run (its row notifies the worker, which claims it if it may: of this version, while no newer one is registered). */
  const enqueue = async (item: string, appVersion?: string): Promise<string> => {
    const workflowID = randomUUID();
    await connection.dbos.enqueue(
      {
        workflowName: RUN_WORKFLOW,
        queueName: RUN_QUEUE,
        workflowID,
        applicationName: APPLICATION_NAME,
        ...(appVersion ? { appVersion } : {}),
      },
      { code: program(item), check: false },
    );
    return workflowID;
  };
  const statusOf = async (runId: string): Promise<string | undefined> =>
    (await connection.pool.query<{ status: string }>('SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1', [runId])).rows[0]
      ?.status;
  const executor = (): Parameters<typeof claimRun>[0] => {
    const exec: unknown = DBOSExecutor.globalInstance;
    if (!canClaimDirectly(exec)) throw new Error('this DBOS cannot claim directly');
    return exec;
  };
  const queue = { name: RUN_QUEUE, workerConcurrency: 1 };

  it(
    'takes a queued run once: of two claims racing for it, one wins, and the run runs once',
    async () => {
      // Queued for another version (the worker hears of it and leaves it), then made this version's without
      // a notification (the trigger fires on the status only); the worker's poll is ten minutes away.
      const runId = await enqueue('raced', `agent-spaces@parked-${randomUUID()}`);
      await connection.pool.query('UPDATE dbos.workflow_status SET application_version = $2 WHERE workflow_uuid = $1', [
        runId,
        applicationVersion(),
      ]);
      expect(await statusOf(runId)).toBe('ENQUEUED');
      const claimed = await Promise.all([
        claimRun(executor(), queue, runId, applicationVersion()),
        claimRun(executor(), queue, runId, applicationVersion()),
      ]);
      expect(claimed.filter(Boolean)).toHaveLength(1);
      expect(await connection.dbos.retrieveWorkflow(runId).getResult()).toMatchObject({ result: 'raced' });
      expect(await statusOf(runId)).toBe('SUCCESS');
      const effects = (await readFile(path.join(space.ledgerDir, 'effects.log'), 'utf8')).trim().split('\n');
      expect(effects.filter((line) => line === 'record raced')).toHaveLength(1);
      // Ended: nothing to take any more.
      expect(await claimRun(executor(), queue, runId, applicationVersion())).toBe(false);
    },
    LONG,
  );

  it(
    'leaves a run of another version, and an unversioned one while a newer version is registered, in the queue',
    async () => {
      const other = await enqueue('other-version', 'agent-spaces@0.0.0-other');
      expect(await claimRun(executor(), queue, other, applicationVersion())).toBe(false);
      expect(await statusOf(other)).toBe('ENQUEUED');
      const newer = randomUUID();
      await connection.pool.query(
        `INSERT INTO dbos.application_versions (version_id, version_name, version_timestamp) VALUES ($1, $2, $3)`,
        [newer, `agent-spaces@newer-${newer}`, Date.now() + 3_600_000],
      );
      try {
        const unversioned = await enqueue('unversioned');
        expect(await claimRun(executor(), queue, unversioned, applicationVersion())).toBe(false);
        expect(await statusOf(unversioned)).toBe('ENQUEUED');
        await connection.dbos.cancelWorkflow(unversioned);
      } finally {
        await connection.pool.query('DELETE FROM dbos.application_versions WHERE version_id = $1', [newer]);
        await connection.dbos.cancelWorkflow(other);
      }
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

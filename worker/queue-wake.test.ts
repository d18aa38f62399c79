// The worker's wake-up (worker/queue-wake.ts) against a real PostgreSQL and DBOS's own queue runner:
// the worker polls the queue only every ten minutes here, so a run it takes at all was taken because
// its submitter's notification, or the end of another run, woke it.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { wfQueueRunner } from '@dbos-inc/dbos-sdk/internal/wfqueue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { createSpace } from '../space/index.js';
import { openStoreConnection, submitRun, type StoreConnection } from '../store/index.js';
import { APPLICATION_NAME, RUN_QUEUE, RUN_QUEUE_CHANNEL, RUN_WORKFLOW } from '../store/internals.js';
import { connectClient } from '../store/store.js';
import { makeDurableSpace, type DurableSpace } from '../store/test-support/durable-space.js';
import { startPostgresCluster, type PostgresCluster } from '../store/test-support/postgres-cluster.js';
import { applicationVersion } from './app-version.js';
import { canClaimDirectly, claimNext } from './direct-claim.js';
import { startWorker, type DurableWorker } from './index.js';
import { installQueueWake, queueWakeCounts } from './queue-wake.js';

const LONG = 300_000;
const TEN_MINUTES = 600_000;
/** Far below the ten minutes a run left in the queue would wait for the worker's next poll. */
const WITHOUT_A_POLL_DUE = 120_000;
const CONCURRENCY = 2;

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
    concurrency: CONCURRENCY,
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
      const started: unknown[] = [];
      const result = await submitRun({
        store,
        code: program('second'),
        check: false,
        onEvent: (event) => {
          if (event.kind === 'started') started.push(event);
        },
      });
      expect(result.error).toBeUndefined();
      expect(result.result).toBe('second');
      // Taken by a claim, not by a poll (a poll's run is not counted as claimed).
      expect(queueWakeCounts()?.claims).toBe((before?.claims ?? 0) + 1);
      // Its attempt took the start the claim made (worker/attempt-start.ts `startAhead`): one start, attempt 1.
      expect(started).toEqual([{ kind: 'started', executorId: worker?.executorId, attempt: 1, replayedCalls: 0 }]);
    },
    LONG,
  );

  it(
    "reports a run DBOS recorded as failed with its error's message (the run is queued in DBOS's portable JSON)",
    async () => {
      // The run's end cannot be written: its workflow throws, and DBOS records the error.
      const admin = await connectClient(store);
      try {
        await admin.query(`CREATE FUNCTION pg_temp_refuse_end() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'the end of this run cannot be written'; END $$`);
        await admin.query(`CREATE TRIGGER refuse_end BEFORE INSERT ON agent_spaces.run_events FOR EACH ROW
          WHEN (NEW.kind = 'end' AND NEW.data LIKE '%end-refused%') EXECUTE FUNCTION pg_temp_refuse_end()`);
        const result = await submitRun({ store, code: program('end-refused'), check: false });
        expect(result.success).toBe(false);
        expect(result.error?.code).toBe('ERROR');
        expect(result.error?.message).toMatch(/ended with status ERROR: .*the end of this run cannot be written/);
        expect(result.error?.message).not.toContain('{"');
      } finally {
        await admin.query('DROP TRIGGER IF EXISTS refuse_end ON agent_spaces.run_events').catch(() => undefined);
        await admin.query('DROP FUNCTION IF EXISTS pg_temp_refuse_end()').catch(() => undefined);
        await admin.end();
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
  const executor = (): Parameters<typeof claimNext>[0] => {
    const exec: unknown = DBOSExecutor.globalInstance;
    if (!canClaimDirectly(exec)) throw new Error('this DBOS cannot claim directly');
    return exec;
  };
  const queue = { name: RUN_QUEUE, workerConcurrency: CONCURRENCY };
  // Runs queued for a version of their own: the worker hears of them and leaves them, and no poll of its
  // takes them; the claims below take them as workers of that version.
  const parkedVersion = (): string => `agent-spaces@parked-${randomUUID()}`;

  it(
    'takes a queued run once: of two claims racing for it, one wins, and the run runs once',
    async () => {
      const parked = parkedVersion();
      const runId = await enqueue('raced', parked);
      expect(await statusOf(runId)).toBe('ENQUEUED');
      const claimed = await Promise.all([claimNext(executor(), queue, 1, parked), claimNext(executor(), queue, 1, parked)]);
      expect(claimed.flat()).toEqual([runId]);
      expect(await connection.dbos.retrieveWorkflow(runId).getResult()).toMatchObject({ result: 'raced' });
      expect(await statusOf(runId)).toBe('SUCCESS');
      const effects = (await readFile(path.join(space.ledgerDir, 'effects.log'), 'utf8')).trim().split('\n');
      expect(effects.filter((line) => line === 'record raced')).toHaveLength(1);
      // Ended: nothing to take any more.
      expect(await claimNext(executor(), queue, 1, parked)).toEqual([]);
    },
    LONG,
  );

  it(
    "takes the queue's runs in order, and passes over a run whose row another transaction holds (it does not wait for it)",
    async () => {
      const parked = parkedVersion();
      const first = await enqueue('first-queued', parked);
      const second = await enqueue('second-queued', parked);
      const held = await enqueue('held', parked);
      expect(await claimNext(executor(), queue, 1, parked)).toEqual([first]);
      const holder = await connection.pool.connect();
      try {
        // The row of `second` is locked (as a poll of another worker holds the rows it is claiming).
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM dbos.workflow_status WHERE workflow_uuid = $1 FOR UPDATE', [second]);
        expect(await claimNext(executor(), queue, 1, parked)).toEqual([held]);
        expect(await claimNext(executor(), queue, 1, parked)).toEqual([]);
        await holder.query('COMMIT');
      } finally {
        holder.release();
      }
      expect(await claimNext(executor(), queue, 2, parked)).toEqual([second]);
      for (const runId of [first, second, held]) await connection.dbos.retrieveWorkflow(runId).getResult();
    },
    LONG,
  );

  it(
    'leaves a run of another version, and an unversioned one while a newer version is registered, in the queue',
    async () => {
      const other = await enqueue('other-version', 'agent-spaces@0.0.0-other');
      expect(await claimNext(executor(), queue, CONCURRENCY, applicationVersion())).toEqual([]);
      expect(await statusOf(other)).toBe('ENQUEUED');
      const newer = randomUUID();
      await connection.pool.query(
        `INSERT INTO dbos.application_versions (version_id, version_name, version_timestamp) VALUES ($1, $2, $3)`,
        [newer, `agent-spaces@newer-${newer}`, Date.now() + 3_600_000],
      );
      try {
        const unversioned = await enqueue('unversioned');
        expect(await claimNext(executor(), queue, CONCURRENCY, applicationVersion())).toEqual([]);
        expect(await statusOf(unversioned)).toBe('ENQUEUED');
        await connection.dbos.cancelWorkflow(unversioned);
      } finally {
        await connection.pool.query('DELETE FROM dbos.application_versions WHERE version_id = $1', [newer]);
        await connection.dbos.cancelWorkflow(other);
      }
    },
    LONG,
  );

  it(
    'hears of a run as it is queued, and as it is moved into the queue from another (the store notifies, not the submitter)',
    async () => {
      const listener = await connectClient(store);
      const heard: string[] = [];
      listener.on('notification', (message) => heard.push(message.payload ?? ''));
      try {
        await listener.query(`LISTEN ${RUN_QUEUE_CHANNEL}`);
        const parked = parkedVersion();
        const runId = await enqueue('heard', parked);
        await connection.dbos.enqueue(
          {
            workflowName: RUN_WORKFLOW,
            queueName: 'elsewhere',
            workflowID: `${runId}-moved`,
            applicationName: APPLICATION_NAME,
            appVersion: parked,
          },
          { code: program('moved'), check: false },
        );
        await connection.pool.query('UPDATE dbos.workflow_status SET queue_name = $2 WHERE workflow_uuid = $1', [
          `${runId}-moved`,
          RUN_QUEUE,
        ]);
        // A statement on the listening connection after the commits: their notifications came before its answer.
        await listener.query('SELECT 1');
        expect(heard.filter((payload) => payload.startsWith(runId))).toEqual([runId, `${runId}-moved`]);
        for (const id of [runId, `${runId}-moved`]) await connection.dbos.cancelWorkflow(id);
      } finally {
        await listener.end();
      }
    },
    LONG,
  );
});

describe('a burst of short runs, queued together', () => {
  it(
    `at its concurrency limit (${CONCURRENCY}), takes each further queued run as a run of its own ends, never more at once — whatever limit another worker registered for the queue`,
    async () => {
      // Short runs, many, queued by one client at once: runs end while a poll is under way, which must not
      // leave the rest in the queue.
      const connection = await openStoreConnection(store, 2);
      // Another worker started with --concurrency 10 registers the queue so: DBOS keeps that limit in the
      // queue's row, which every worker reloads. This worker still runs its own two at once.
      await connection.pool.query('UPDATE dbos.queues SET worker_concurrency = 10 WHERE name = $1', [RUN_QUEUE]);
      const runner = wfQueueRunner as unknown as { states: Map<string, { queue: { workerConcurrency?: number } }> };
      while (runner.states.get(RUN_QUEUE)?.queue.workerConcurrency !== 10) await new Promise((resolve) => setTimeout(resolve, 50));
      try {
        const items = Array.from({ length: 100 }, (_, index) => `burst-${index}`);
        const handles = await Promise.all(
          items.map((item) =>
            connection.dbos.enqueue(
              { workflowName: RUN_WORKFLOW, queueName: RUN_QUEUE, workflowID: randomUUID(), applicationName: APPLICATION_NAME },
              { code: `export default '${item}';`, check: false },
            ),
          ),
        );
        const results = await Promise.all(handles.map((handle) => handle.getResult({ pollingIntervalMs: 50 })));
        expect(results.map((result) => (result as { result: unknown }).result)).toEqual(items);
        // The worker's limit held, whether a run was claimed on its notification or by a poll.
        const { rows } = await connection.pool.query<{ started: string; ended: string }>(
          `SELECT started_at_epoch_ms AS started, updated_at AS ended FROM dbos.workflow_status WHERE workflow_uuid = ANY($1)`,
          [handles.map((handle) => handle.workflowID)],
        );
        expect(rows).toHaveLength(items.length);
        const spans = rows.map((row) => ({ started: Number(row.started), ended: Number(row.ended) }));
        for (const { started } of spans)
          expect(spans.filter((span) => span.started <= started && started < span.ended).length).toBeLessThanOrEqual(CONCURRENCY);
      } finally {
        await connection.close();
      }
    },
    // Runs left in the queue when a poll came and went would wait ten minutes for the next one.
    WITHOUT_A_POLL_DUE,
  );
});

describe('installQueueWake', () => {
  it('refuses a second hook while the worker holds one: the runner is wrapped once', () => {
    // The worker's hook is installed: a second one would wrap the wrapper, and is not needed.
    expect(() => installQueueWake('agent-spaces-runs')).toThrow(/already/);
  });
});

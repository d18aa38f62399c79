// Retention against a real PostgreSQL (a private cluster) and real worker processes: `agent-spaces
// store prune` and a worker's durable.retention delete the rows of finished runs (ours and DBOS's
// workflow rows) and never those of an unfinished run or a pending approval.
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openApprovals, submitRun, type DurableRunEvent } from './index.js';
import { SCHEMA } from './store.js';
import { makeDurableSpace, startCli, type DurableSpace } from './test-support/durable-space.js';
import { useStoreForFile } from './test-support/worker-processes.js';
import { APPLICATION_NAME } from './workflow-names.js';

const testStore = useStoreForFile();
const { workers } = testStore;

const LONG = 600_000;
const SEND = `import { ledger } from '@capabilities/ledger';\nawait ledger.record({ item: 'before' });\ntry { await ledger.send({ item: 'parcel' }); } catch (error) { console.log(String(error)); }\nexport default 'sent';`;

/** Two finished runs (one with a denied approval) and one waiting for its approval, by one worker. */
async function runsInTheStore(space: DurableSpace, store: string) {
  const worker = workers.start(space, store);
  await workers.ready(worker);
  const finished = await submitRun({
    store,
    code: `import { ledger } from '@capabilities/ledger';\nawait ledger.record({ item: 'done' });\nexport default 1;`,
  });
  expect(finished.result).toBe(1);
  const approvals = await openApprovals(store);
  try {
    const denied = await submitRun({
      store,
      code: SEND,
      onEvent: (event) => {
        if (event.kind === 'approval-required') void approvals.decide(event.approvalId, { approved: false });
      },
    });
    expect(denied.result).toBe('sent');
  } finally {
    await approvals.close();
  }
  const events: DurableRunEvent[] = [];
  const stopWaiting = new AbortController();
  const waiting = submitRun({ store, code: SEND, timeoutMs: LONG, signal: stopWaiting.signal, onEvent: (event) => events.push(event) });
  await expect.poll(() => events.some((event) => event.kind === 'approval-required'), { timeout: 300_000 }).toBe(true);
  return { worker, waiting, stopWaiting };
}

/** Rows per table, by run id. */
async function rowsOf(
  store: string,
): Promise<{ events: Record<string, number>; calls: Record<string, number>; approvals: { run_id: string; status: string }[] }> {
  const client = new pg.Client({ connectionString: store });
  await client.connect();
  try {
    const count = async (table: string): Promise<Record<string, number>> =>
      Object.fromEntries(
        (
          await client.query<{ run_id: string; n: number }>(`SELECT run_id, count(*)::int AS n FROM ${SCHEMA}.${table} GROUP BY run_id`)
        ).rows.map((row) => [row.run_id, row.n]),
      );
    const approvals = (
      await client.query<{ run_id: string; status: string }>(`SELECT run_id, status FROM ${SCHEMA}.approvals ORDER BY created_at`)
    ).rows;
    return { events: await count('run_events'), calls: await count('call_journal'), approvals };
  } finally {
    await client.end();
  }
}

async function workflowStatuses(store: string): Promise<Record<string, string>> {
  const client = await DBOSClient.create({ systemDatabaseUrl: store, applicationName: APPLICATION_NAME });
  try {
    return Object.fromEntries(
      (await client.listWorkflows({ loadInput: false, loadOutput: false })).map((status) => [status.workflowID, status.status]),
    );
  } finally {
    await client.destroy();
  }
}

describe('agent-spaces store prune', () => {
  it(
    'deletes the finished runs older than --older-than, and nothing of the run waiting for its approval',
    async () => {
      const space = await makeDurableSpace('retention-cli');
      const store = await testStore.cluster.createDatabase('prune_cli');
      const { waiting } = await runsInTheStore(space, store);
      const before = await rowsOf(store);
      expect(Object.keys(before.events)).toHaveLength(3);
      expect(before.approvals.map((approval) => approval.status)).toEqual(['denied', 'pending']);
      const waitingRun = before.approvals[1]?.run_id as string;

      // Nothing ended a week ago: the default cutoff deletes nothing.
      const kept = startCli(['store', 'prune', '--store', store, '--json'], { cwd: space.root });
      expect(await kept.exited).toBe(0);
      expect(JSON.parse(kept.stdout())).toMatchObject({ runs: 0, events: 0, a2aTasks: 0, agentSessions: 0 });
      expect(await rowsOf(store)).toEqual(before);

      const pruned = startCli(['store', 'prune', '--older-than', '0s', '--store', store], { cwd: space.root });
      expect(await pruned.exited).toBe(0);
      expect(pruned.stderr()).toMatch(
        /pruned .*: 2 run\(s\) that ended before the last 0s \(\d+ events, \d+ journaled calls, 1 approvals, 0 model replies\); 0 A2A task\(s\) and 0 agent session\(s\)/,
      );
      const after = await rowsOf(store);
      expect(after.events).toEqual({ [waitingRun]: before.events[waitingRun] });
      expect(after.calls).toEqual({ [waitingRun]: before.calls[waitingRun] });
      expect(after.approvals).toEqual([{ run_id: waitingRun, status: 'pending' }]);
      expect(await workflowStatuses(store)).toEqual({ [waitingRun]: 'PENDING' });

      // The waiting run lost nothing: approved now, it completes.
      const approvals = await openApprovals(store);
      try {
        const [pending] = await approvals.list();
        await approvals.decide(pending?.id as string, { approved: true });
      } finally {
        await approvals.close();
      }
      expect((await waiting).result).toBe('sent');
      expect(space.effects()).toEqual(['record done', 'record before', 'record before', 'send parcel']);
    },
    LONG,
  );

  it('refuses a duration it cannot read', async () => {
    const space = await makeDurableSpace('retention-usage');
    const prune = startCli(['store', 'prune', '--older-than', 'a week', '--store', 'postgres://127.0.0.1:1/none'], { cwd: space.root });
    expect(await prune.exited).toBe(2);
    expect(prune.stderr()).toContain('--older-than takes a duration');
  });
});

describe('a worker with durable.retention', () => {
  it(
    'prunes the finished runs by itself, and nothing of the run waiting for its approval',
    async () => {
      const space = await makeDurableSpace('retention-worker');
      const store = await testStore.cluster.createDatabase('prune_worker');
      const { worker, waiting, stopWaiting } = await runsInTheStore(space, store);
      const before = await rowsOf(store);
      const waitingRun = before.approvals[1]?.run_id as string;
      await workers.killHard(worker);

      const configFile = path.join(space.root, 'agent-spaces.config.json');
      const config = JSON.parse(await readFile(configFile, 'utf8')) as { durable: Record<string, unknown> };
      await writeFile(
        configFile,
        JSON.stringify({ ...config, durable: { ...config.durable, retention: { olderThan: '0s', interval: '1s' } } }),
      );
      const pruning = workers.start(space, store);
      await expect.poll(() => pruning.stderr(), { timeout: 300_000 }).toContain('retention: deleted the rows of 2 run(s)');

      const after = await rowsOf(store);
      expect(Object.keys(after.events)).toEqual([waitingRun]);
      expect(after.approvals).toEqual([{ run_id: waitingRun, status: 'pending' }]);
      expect(Object.keys(await workflowStatuses(store))).toEqual([waitingRun]);
      stopWaiting.abort();
      await expect(waiting).rejects.toThrow('stopped waiting');
    },
    LONG,
  );
});

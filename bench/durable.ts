/**
 * Durable runs (issue 15), on a private PostgreSQL cluster started here (store/test-support):
 * - per-call overhead of the call journal: the same program of sequential calls run in memory
 *   (`space.run`, the baseline) and through the store by a worker (journal writes per call: two for a
 *   function not marked idempotent — started, finished — one for an idempotent one);
 * - the wait for one trivial run (issue 30): `space.run` in memory against a submit through the store's
 *   shared connections (what a `serve --store` replica does for execute_code) to a worker in this
 *   process, interleaved, medians (wall time from submit to result: queueing counted);
 * - throughput of 100 short queued runs with 1 and 2 `agent-spaces worker` processes (ratios to 1, and
 *   runs/s per worker process: each is a Node host that needs a core of its own).
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { openSpace } from '../agents/index.js';
import { loadConfig } from '../config/index.js';
import type { RunResult } from '../core/index.js';
import { submitRun } from '../store/index.js';
import { openStoreConnection } from '../store/store-connection.js';
import { createPool, notifyRunsQueued } from '../store/store.js';
import { startWorker } from '../worker/index.js';
import { makeDurableSpace, startCli, type CliProcess } from '../store/test-support/durable-space.js';
import { startPostgresCluster } from '../store/test-support/postgres-cluster.js';
import { APPLICATION_NAME, RUN_QUEUE, RUN_WORKFLOW } from '../store/workflow-names.js';
import { median } from './median.js';

const CALLS = 200;
const REPS = 3;
const RUNS = 100;
/** Trivial runs timed one at a time: in memory and through the store (the path of `serve --store`'s execute_code). */
const LATENCY_RUNS = 15;
const TRIVIAL = 'export default 1 + 1;';

const callsProgram = (fn: 'echo' | 'peek'): string =>
  `import { ledger } from '@capabilities/ledger';\nfor (let i = 0; i < ${CALLS}; i++) await ledger.${fn}({ item: 'x' + i });\nexport default ${CALLS};`;
const SHORT = `import { ledger } from '@capabilities/ledger';\nexport default await ledger.peek({ item: 'short' });`;

function perCallMicros(result: RunResult): number {
  if (!result.success) throw new Error(`bench run failed: ${result.error?.message ?? 'unknown'}`);
  return (result.durationMs * 1000) / CALLS;
}

async function waitFor(what: string, check: () => boolean): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > 300_000) throw new Error(`waited 5 minutes for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function run(): Promise<string> {
  const cluster = await startPostgresCluster();
  const rows: string[] = [];
  try {
    const space = await makeDurableSpace('bench-durable');
    Object.assign(process.env, space.env);
    const config = await loadConfig({ cwd: space.root });

    // Per call: all runs in memory first (that space then closed), then all through the store (a worker
    // in this process, the submitter too), so the two spaces' sandbox pools never compete.
    const inMemory = { echo: [] as number[], peek: [] as number[] };
    const stored = { echo: [] as number[], peek: [] as number[] };
    const memory = await openSpace({ config });
    try {
      for (let rep = 0; rep < REPS + 1; rep += 1) {
        for (const fn of ['echo', 'peek'] as const) {
          const local = perCallMicros(await memory.run(callsProgram(fn)));
          if (rep > 0) inMemory[fn].push(local); // rep 0 warms up: build, sandbox start
        }
      }
    } finally {
      await memory.close();
    }
    const perCallStore = await cluster.createDatabase('per_call');
    const worker = await startWorker({ store: perCallStore, config, openSpace });
    try {
      rows.push(await trivialRunWait(perCallStore, config));
      for (let rep = 0; rep < REPS + 1; rep += 1) {
        for (const fn of ['echo', 'peek'] as const) {
          const durable = perCallMicros(await submitRun({ store: perCallStore, code: callsProgram(fn) }));
          if (rep > 0) stored[fn].push(durable); // rep 0 warms up: connections, sandbox start
        }
      }
    } finally {
      await worker.close();
    }
    for (const fn of ['echo', 'peek'] as const) {
      const local = median(inMemory[fn]);
      const durable = median(stored[fn]);
      const label = fn === 'echo' ? 'not idempotent (2 journal writes)' : 'idempotent (1 journal write)';
      console.error(`bench durable: per call ${fn} done`);
      rows.push(
        `| ${CALLS} sequential calls, per call, ${label}: in memory / with the store | ${local.toFixed(0)} / ${durable.toFixed(0)} µs | +${(durable - local).toFixed(0)} µs a call (${(durable / local).toFixed(1)}×) |`,
      );
    }

    // Throughput: 100 short runs queued at once, N worker processes taking them.
    let base: number | undefined;
    for (const workers of [1, 2]) {
      const store = await cluster.createDatabase(`throughput_${workers}`);
      const processes: CliProcess[] = [];
      try {
        for (let index = 0; index < workers; index += 1) {
          const started = startCli(['worker', '--store', store, '--concurrency', '8'], { cwd: space.root, env: space.env });
          processes.push(started);
          await waitFor('a worker to be ready', () => started.stderr().includes(' ready ('));
        }
        const client = await DBOSClient.create({ systemDatabaseUrl: store, applicationName: APPLICATION_NAME });
        const notifier = createPool(store, 1);
        try {
          // One run first, so every worker's sandbox is warm before the clock starts.
          await (
            await client.enqueue(
              { workflowName: RUN_WORKFLOW, queueName: RUN_QUEUE, applicationName: APPLICATION_NAME },
              { code: SHORT, check: false },
            )
          ).getResult();
          const started = performance.now();
          const ids = Array.from({ length: RUNS }, () => randomUUID());
          const handles = await Promise.all(
            ids.map((workflowID) =>
              client.enqueue(
                { workflowName: RUN_WORKFLOW, queueName: RUN_QUEUE, workflowID, applicationName: APPLICATION_NAME },
                { code: SHORT, check: false },
              ),
            ),
          );
          // As submitRun does: the workers take the runs now, not at their next poll of the queue.
          await notifyRunsQueued(notifier, ids);
          const results = (await Promise.all(handles.map((handle) => handle.getResult({ pollingIntervalMs: 250 })))) as RunResult[];
          const seconds = (performance.now() - started) / 1000;
          const failed = results.filter((result) => !result.success);
          if (failed.length > 0)
            console.error(
              `bench durable: ${failed.length} of ${RUNS} runs failed, e.g. ${failed[0]?.error?.code}: ${failed[0]?.error?.message}`,
            );
          const perSecond = RUNS / seconds;
          base ??= perSecond;
          const contention = processes.map((running) => running.stderr().split('contention').length - 1).reduce((a, b) => a + b, 0);
          if (process.env.AGENT_SPACES_DEBUG) console.error(`bench durable: ${workers} workers: ${contention} queue contention warnings`);
          rows.push(
            `| ${RUNS} short runs (1 call each, no type-check), ${workers} worker process${workers === 1 ? '' : 'es'} (--concurrency 8) | ${seconds.toFixed(1)} s, ${perSecond.toFixed(1)} runs/s, ${(perSecond / workers).toFixed(1)} runs/s per worker process | ${(perSecond / base).toFixed(2)}× of 1 worker |`,
          );
        } finally {
          await client.destroy();
          await notifier.end();
        }
      } finally {
        for (const running of processes) running.child.kill('SIGTERM');
        await Promise.all(processes.map((running) => running.exited));
      }
    }
  } finally {
    await cluster.stop();
  }
  return `## Durable runs (issues 15 and 30)\n\n${os.cpus().length} cores; load average ${os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ')} at the end.\n\n| measurement | value | ratio |\n|---|---|---|\n${rows.join('\n')}\n`;
}

/**
 * One trivial run at a time, in memory and through the store (submitRun over one shared StoreConnection,
 * as a serve replica submits execute_code), alternating; the medians of wall time and their ratio.
 */
async function trivialRunWait(store: string, config: Awaited<ReturnType<typeof loadConfig>>): Promise<string> {
  const memory = await openSpace({ config });
  const shared = await openStoreConnection(store, 3);
  const times = { memory: [] as number[], stored: [] as number[] };
  try {
    for (let rep = 0; rep < LATENCY_RUNS + 1; rep += 1) {
      let started = performance.now();
      const local = await memory.run(TRIVIAL, { check: false });
      const localMs = performance.now() - started;
      started = performance.now();
      const durable = await submitRun({ store, code: TRIVIAL, check: false }, shared);
      const storedMs = performance.now() - started;
      if (local.result !== 2 || durable.result !== 2)
        throw new Error(`bench trivial run: got ${String(local.result)} / ${String(durable.result)}`);
      if (rep === 0) continue; // warms up: sandboxes, connections
      times.memory.push(localMs);
      times.stored.push(storedMs);
    }
  } finally {
    await shared.close();
    await memory.close();
  }
  const local = median(times.memory);
  const durable = median(times.stored);
  console.error('bench durable: trivial run wait done');
  return `| one trivial run, submit to result (${LATENCY_RUNS} each, alternating): in memory / through the store (serve --store's path) | ${local.toFixed(1)} / ${durable.toFixed(1)} ms | ${(durable / local).toFixed(2)}× (target ≤ 2×) |`;
}

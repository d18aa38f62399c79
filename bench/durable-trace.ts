/**
 * Where a durable run's time goes: one trivial run through the store (`submitRun` over a shared
 * connection to a worker in this process, `serve --store`'s path), every query of every PostgreSQL client
 * of this process written with the time it was sent and answered, from the submit on. Runs 20 runs first
 * (connections, sandboxes, DBOS's caches) and prints their median beside an in-memory run's.
 *
 *   node --no-node-snapshot --import tsx bench/durable-trace.ts
 *
 * A private cluster (store/test-support), fsync off as for the tests: the round trips, not the disk.
 */
import pg from 'pg';
import { openSpace } from '../agents/index.js';
import { loadConfig } from '../config/index.js';
import { submitRun } from '../store/index.js';
import { openStoreConnection } from '../store/store-connection.js';
import { makeDurableSpace } from '../store/test-support/durable-space.js';
import { startPostgresCluster } from '../store/test-support/postgres-cluster.js';
import { startWorker } from '../worker/index.js';
import { median } from './median.js';

const TRIVIAL = 'export default 1 + 1;';
const WARM_RUNS = 20;

const lines: string[] = [];
let tracing = false;
let origin = 0;
const note = (what: string): void => {
  if (tracing) lines.push(`${(performance.now() - origin).toFixed(2).padStart(7)} ms  ${what}`);
};

// Every client's queries, the pool's and the listeners' alike (they are all pg.Client).
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as { query: unknown }).query = function traced(this: pg.Client, ...args: unknown[]): unknown {
  const first = args[0] as string | { text?: string } | undefined;
  const text = (typeof first === 'string' ? first : (first?.text ?? '')).replace(/\s+/g, ' ').trim().slice(0, 96);
  const sent = performance.now();
  note(`sent      ${text}`);
  const answered = (failed: boolean): void =>
    note(`${failed ? 'failed   ' : 'answered '} ${text.slice(0, 60)} (${(performance.now() - sent).toFixed(2)} ms)`);
  // pg.Pool's query passes a callback; a client's own returns a promise.
  const callback = args.at(-1);
  if (typeof callback === 'function')
    args[args.length - 1] = (error: unknown, ...rest: unknown[]): unknown => {
      answered(error !== null && error !== undefined);
      return (callback as (...values: unknown[]) => unknown)(error, ...rest);
    };
  const result = query.apply(this, args);
  if (result instanceof Promise)
    result.then(
      () => answered(false),
      () => answered(true),
    );
  return result;
};

const cluster = await startPostgresCluster();
try {
  const space = await makeDurableSpace('bench-durable-trace');
  Object.assign(process.env, space.env);
  const config = await loadConfig({ cwd: space.root });
  const store = await cluster.createDatabase('trace');
  const worker = await startWorker({ store, config, openSpace });
  const shared = await openStoreConnection(store, 3);
  const memory = await openSpace({ config });
  const times = { memory: [] as number[], stored: [] as number[] };
  try {
    for (let run = 0; run <= WARM_RUNS; run += 1) {
      let started = performance.now();
      await memory.run(TRIVIAL, { check: false });
      times.memory.push(performance.now() - started);
      tracing = run === WARM_RUNS;
      origin = started = performance.now();
      const result = await submitRun({ store, code: TRIVIAL, check: false }, shared);
      note(`submitRun returned ${String(result.result)}`);
      tracing = false;
      times.stored.push(performance.now() - started);
    }
  } finally {
    await shared.close();
    await worker.close();
    await memory.close();
  }
  console.log(
    `trivial run, medians of ${WARM_RUNS + 1}: in memory ${median(times.memory).toFixed(1)} ms, through the store ${median(times.stored).toFixed(1)} ms\n` +
      `the last run through the store, from the submit (a query's answer comes back on the client's own event loop turn):\n${lines.join('\n')}`,
  );
} finally {
  await cluster.stop();
}

/**
 * Durable runs (issue 15), on a private PostgreSQL cluster started here (store/test-support):
 * - per-call overhead of the call journal: the same program of sequential calls run in memory
 *   (`space.run`, the baseline) and through the store by a worker (journal writes per call: two for a
 *   function not marked idempotent — started, finished — one for an idempotent one);
 * - the wait for one trivial run (issue 30): `space.run` in memory against a submit through the store's
 *   shared connections (what a `serve --store` replica does for execute_code) to a worker in this
 *   process, interleaved, medians (wall time from submit to result: queueing counted);
 * - throughput of 400 short queued runs with 1 and 2 `agent-spaces worker` processes (ratios to 1,
 *   runs/s per worker process, and per core: the CPU time the workers' process trees and PostgreSQL's
 *   processes used over the window, from /proc, so what the machine had left is visible).
 * - `execute_code` as an MCP client meets it (issue 30's "where a person waits" row): a real SDK client
 *   over Streamable HTTP to `agent-spaces serve --http` without a store and to `serve --http --store`
 *   with an `agent-spaces worker` process, alternating, medians;
 * BENCH_DURABLE=wait,calls,throughput,mcp runs only those parts (default: all); BENCH_DURABLE_RUNS=40 times
 * 40 trivial runs of each kind (default 15).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openSpace } from '../agents/index.js';
import { loadConfig } from '../config/index.js';
import type { RunResult } from '../core/index.js';
import { submitRun } from '../store/index.js';
import { openStoreConnection } from '../store/store-connection.js';
import { SCHEMA, createPool } from '../store/store.js';
import { JournalWriter } from '../worker/journal-writer.js';
import { startWorker } from '../worker/index.js';
import { makeDurableSpace, startCli, type CliProcess, type DurableSpace } from '../store/test-support/durable-space.js';
import { startPostgresCluster, type PostgresCluster } from '../store/test-support/postgres-cluster.js';
import { APPLICATION_NAME, RUN_QUEUE, RUN_WORKFLOW } from '../store/workflow-names.js';
import { median } from './median.js';

const CALLS = 200;
const REPS = 3;
const RUNS = 400;
/** Trivial runs timed one at a time: in memory and through the store (the path of `serve --store`'s execute_code); BENCH_DURABLE_RUNS sets it. */
const LATENCY_RUNS = Math.max(3, Number(process.env.BENCH_DURABLE_RUNS ?? 15) || 15);
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

/** Clock ticks a second in /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS = 100;

/** The parent pid and CPU seconds (own and reaped children's) of every process, from /proc. */
function processTable(): Map<number, { parent: number; cpu: number; cmdline: string }> {
  const table = new Map<number, { parent: number; cpu: number; cmdline: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the name: state, ppid, … utime (14th field of stat), stime, cutime, cstime.
      const cpu = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0) / TICKS;
      table.set(Number(name), { parent: Number(fields[1]), cpu, cmdline: readFileSync(`/proc/${name}/cmdline`, 'utf8') });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** CPU seconds of the processes under `roots` (themselves included), and of the PostgreSQL server listening on `port`. */
function cpuSeconds(roots: readonly number[], port: string): { workers: number; postgres: number } {
  const table = processTable();
  const under = (root: number): number => {
    let sum = table.get(root)?.cpu ?? 0;
    for (const [pid, entry] of table) if (entry.parent === root) sum += under(pid);
    return sum;
  };
  const postmaster = [...table].find(([, entry]) => entry.cmdline.includes(`-p\0${port}\0`) || entry.cmdline.includes(`-p ${port} `))?.[0];
  return {
    workers: roots.reduce((sum, root) => sum + under(root), 0),
    postgres: postmaster === undefined ? Number.NaN : under(postmaster),
  };
}

const parts = new Set((process.env.BENCH_DURABLE ?? 'wait,calls,throughput,mcp').split(','));

export async function run(): Promise<string> {
  const cluster = await startPostgresCluster();
  const port = new URL(cluster.url).port;
  const rows: string[] = [];
  try {
    const space = await makeDurableSpace('bench-durable');
    Object.assign(process.env, space.env);
    const config = await loadConfig({ cwd: space.root });
    if (parts.has('wait') || parts.has('calls')) rows.push(...(await inProcessRows(cluster, config, port)));
    if (parts.has('wait')) rows.push(await trivialRunWaitToWorkerProcess(cluster, space, config, port));
    if (parts.has('mcp')) rows.push(await executeCodeOverMcp(cluster, space));
    if (parts.has('throughput')) rows.push(...(await throughputRows(cluster, space, port)));
  } finally {
    await cluster.stop();
  }
  return `## Durable runs (issues 15 and 30)\n\n${os.cpus().length} cores; load average ${os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ')} at the end.\n\n| measurement | value | ratio |\n|---|---|---|\n${rows.join('\n')}\n`;
}

type Config = Awaited<ReturnType<typeof loadConfig>>;

/**
 * CPU of this process's tree (its sandbox workers included) and of PostgreSQL while `work` runs, added to
 * `into`; `into.lastMs` is the wall time of `work` alone (each read of /proc around it takes 2–3 ms).
 */
async function measured<T>(into: { cpu: number; lastMs?: number }, port: string, work: () => Promise<T>): Promise<T> {
  const before = cpuSeconds([process.pid], port);
  const started = performance.now();
  const value = await work();
  into.lastMs = performance.now() - started;
  const after = cpuSeconds([process.pid], port);
  into.cpu += after.workers - before.workers + (after.postgres - before.postgres);
  return value;
}

/**
 * Per call: all runs in memory first (that space then closed), then all through the store (a worker in
 * this process, the submitter too), so the two spaces' sandbox pools never compete. CPU: this process's
 * tree and PostgreSQL's, per call.
 */
async function inProcessRows(cluster: PostgresCluster, config: Config, port: string): Promise<string[]> {
  const rows: string[] = [];
  const inMemory = { echo: [] as number[], peek: [] as number[] };
  const stored = { echo: [] as number[], peek: [] as number[] };
  const cpu = { memory: { echo: { cpu: 0 }, peek: { cpu: 0 } }, stored: { echo: { cpu: 0 }, peek: { cpu: 0 } } };
  const calls = parts.has('calls');
  if (calls) {
    const memory = await openSpace({ config });
    try {
      for (let rep = 0; rep < REPS + 1; rep += 1) {
        for (const fn of ['echo', 'peek'] as const) {
          const into = rep > 0 ? cpu.memory[fn] : { cpu: 0 };
          const local = perCallMicros(await measured(into, port, () => memory.run(callsProgram(fn), { check: false })));
          if (rep > 0) inMemory[fn].push(local); // rep 0 warms up: build, sandbox start
        }
      }
    } finally {
      await memory.close();
    }
  }
  const perCallStore = await cluster.createDatabase('per_call');
  const worker = await startWorker({ store: perCallStore, config, openSpace });
  try {
    if (parts.has('wait')) rows.push(await trivialRunWait(perCallStore, config, port, 'a worker in the bench process'));
    for (let rep = 0; calls && rep < REPS + 1; rep += 1) {
      for (const fn of ['echo', 'peek'] as const) {
        const into = rep > 0 ? cpu.stored[fn] : { cpu: 0 };
        const durable = perCallMicros(
          await measured(into, port, () => submitRun({ store: perCallStore, code: callsProgram(fn), check: false })),
        );
        if (rep > 0) stored[fn].push(durable); // rep 0 warms up: connections, sandbox start
      }
    }
    if (calls) rows.push(await journalFloor(perCallStore));
  } finally {
    await worker.close();
  }
  for (const fn of calls ? (['echo', 'peek'] as const) : []) {
    const local = median(inMemory[fn]);
    const durable = median(stored[fn]);
    const cpuMicros = (side: { cpu: number }): string => ((side.cpu * 1e6) / (REPS * CALLS)).toFixed(0);
    const label = fn === 'echo' ? 'not idempotent (started, finished)' : 'idempotent (finished only)';
    console.error(`bench durable: per call ${fn} done`);
    rows.push(
      `| ${CALLS} sequential calls, per call, ${label}: in memory / with the store (CPU per call, host tree + PostgreSQL) | ${local.toFixed(0)} / ${durable.toFixed(0)} µs (CPU ${cpuMicros(cpu.memory[fn])} / ${cpuMicros(cpu.stored[fn])} µs) | +${(durable - local).toFixed(0)} µs a call (${(durable / local).toFixed(2)}×) |`,
    );
  }
  return rows;
}

/**
 * The floor of a call not marked idempotent: its `started` row must be committed before the call is
 * performed, so it costs at least one statement's round trip. Timed alone here, no sandbox and no
 * program: the journal's writer (its one-row batch statement, prepared) queued and flushed row after
 * row, and `SELECT 1`, each awaited, through a pool of this process as the worker's.
 */
async function journalFloor(store: string): Promise<string> {
  const pool = createPool(store, 2);
  const runId = `bench-floor-${randomUUID()}`;
  // A failed write rejects the flush that waits for it.
  const writer = new JournalWriter(pool, runId, 'bench', () => undefined);
  const perStatement = { insert: [] as number[], select: [] as number[] };
  try {
    for (let rep = 0; rep < REPS + 1; rep += 1) {
      let started = performance.now();
      for (let index = 0; index < CALLS; index += 1) {
        writer.queue({
          key: { key: `x#${rep}.${index}`, capability: 'ledger', function: 'echo', argsHash: 'h', occurrence: index },
          status: 'started',
          outcome: null,
        });
        await writer.flush();
      }
      const insert = ((performance.now() - started) * 1000) / CALLS;
      started = performance.now();
      for (let index = 0; index < CALLS; index += 1) await pool.query('SELECT 1');
      const select = ((performance.now() - started) * 1000) / CALLS;
      if (rep === 0) continue; // warms up: connections, the prepared statement
      perStatement.insert.push(insert);
      perStatement.select.push(select);
    }
  } finally {
    await pool.query(`DELETE FROM ${SCHEMA}.call_journal WHERE run_id = $1`, [runId]).catch(() => undefined);
    await pool.end();
  }
  const insert = median(perStatement.insert);
  return `| the floor of a call not marked idempotent (its \`started\` row committed before it is performed): the journal's one-row statement alone, queued and flushed ${CALLS} times in a row / \`SELECT 1\`, each awaited, no sandbox | ${insert.toFixed(0)} / ${median(perStatement.select).toFixed(0)} µs a statement | ${(insert / 300).toFixed(2)}× the +0.3 ms a call of the target |`;
}

/**
 * Throughput: 400 short runs queued at once, N worker processes taking them. CPU over the window, from
 * /proc: the worker processes' trees (their sandbox workers included) and PostgreSQL's processes.
 */
async function throughputRows(cluster: PostgresCluster, space: DurableSpace, port: string): Promise<string[]> {
  const rows: string[] = [];
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
        const enqueue = (workflowID?: string) =>
          client.enqueue(
            { workflowName: RUN_WORKFLOW, queueName: RUN_QUEUE, applicationName: APPLICATION_NAME, ...(workflowID ? { workflowID } : {}) },
            { code: SHORT, check: false },
          );
        // As many runs first as the workers take at once, so every worker's sandbox pool has grown (its
        // sandbox processes started) before the clock starts: a cold pool's starts would count as runs' CPU.
        const warmIds = Array.from({ length: workers * 8 }, () => randomUUID());
        const warm = await Promise.all(warmIds.map((workflowID) => enqueue(workflowID)));
        await Promise.all(warm.map((handle) => handle.getResult({ pollingIntervalMs: 100 })));
        const roots = processes.map((running) => running.child.pid ?? 0);
        const cpuBefore = cpuSeconds(roots, port);
        const started = performance.now();
        const ids = Array.from({ length: RUNS }, () => randomUUID());
        const handles = await Promise.all(ids.map((workflowID) => enqueue(workflowID)));
        // Each queued row notified the workers as it committed (the store's trigger), as a submitRun's does.
        // One look at the store every 10 ms for the runs' end (not a poll per run: 400 pollers would load
        // PostgreSQL, and a 250 ms poll made a 1.6 s window step by a sixth); then the results, at once.
        await allEnded(notifier, ids);
        const seconds = (performance.now() - started) / 1000;
        const results = (await Promise.all(handles.map((handle) => handle.getResult()))) as RunResult[];
        const cpuAfter = cpuSeconds(roots, port);
        const failed = results.filter((result) => !result.success);
        if (failed.length > 0)
          console.error(
            `bench durable: ${failed.length} of ${RUNS} runs failed, e.g. ${failed[0]?.error?.code}: ${failed[0]?.error?.message}`,
          );
        const perSecond = RUNS / seconds;
        base ??= perSecond;
        const workerCores = (cpuAfter.workers - cpuBefore.workers) / seconds;
        const postgresCores = (cpuAfter.postgres - cpuBefore.postgres) / seconds;
        const free = os.cpus().length - postgresCores;
        rows.push(
          `| ${RUNS} short runs (1 call each, no type-check), ${workers} worker process${workers === 1 ? '' : 'es'} (--concurrency 8) | ${seconds.toFixed(1)} s, ${perSecond.toFixed(1)} runs/s; ${(perSecond / workers).toFixed(1)} per worker process; workers used ${workerCores.toFixed(2)} cores (${(perSecond / workerCores).toFixed(1)} runs/s per core), PostgreSQL ${postgresCores.toFixed(2)} (${free.toFixed(2)} of ${os.cpus().length} left) | ${(perSecond / base).toFixed(2)}× of 1 worker |`,
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
  return rows;
}

/** Resolves once every run of `ids` has ended in DBOS's status table (looked at every 10 ms). */
async function allEnded(pool: ReturnType<typeof createPool>, ids: readonly string[]): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { rows } = await pool.query<{ ended: number }>(
      `SELECT count(*)::int AS ended FROM dbos.workflow_status WHERE workflow_uuid = ANY($1) AND status NOT IN ('ENQUEUED', 'PENDING')`,
      [ids],
    );
    if ((rows[0]?.ended ?? 0) >= ids.length) return;
    if (Date.now() - started > 300_000) throw new Error(`waited 5 minutes for ${ids.length} runs to end`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The trivial-run wait again with the worker in a process of its own (`agent-spaces worker`), as a
 * `serve --store` deployment runs it: the submitter and the worker do not share an event loop.
 */
async function trivialRunWaitToWorkerProcess(cluster: PostgresCluster, space: DurableSpace, config: Config, port: string): Promise<string> {
  const store = await cluster.createDatabase('wait_process');
  const worker = startCli(['worker', '--store', store], { cwd: space.root, env: space.env });
  try {
    await waitFor('a worker to be ready', () => worker.stderr().includes(' ready ('));
    return await trivialRunWait(store, config, port, 'a worker process (`agent-spaces worker`)');
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
}

/** `agent-spaces serve --http 0` in the space's folder; resolves with its MCP endpoint once it listens. */
async function startServe(space: DurableSpace, extra: string[]): Promise<{ cli: CliProcess; url: string }> {
  const cli = startCli(['serve', '--http', '0', ...extra], { cwd: space.root, env: space.env });
  let url: string | undefined;
  await waitFor('serve to listen', () => {
    url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(cli.stderr())?.[1];
    if (url === undefined && cli.child.exitCode !== null) throw new Error(`serve exited: ${cli.stderr()}`);
    return url !== undefined;
  });
  return { cli, url: url ?? '' };
}

/**
 * `execute_code` of a trivial program as an MCP client meets it: the SDK's client over Streamable HTTP
 * to `serve --http` (in memory) and to `serve --http --store` with a worker process, alternating (as
 * the issue measured it: 17 against 108 ms when DBOS polled its queue); type-checked, execute_code's default.
 */
async function executeCodeOverMcp(cluster: PostgresCluster, space: DurableSpace): Promise<string> {
  const store = await cluster.createDatabase('execute_code');
  const started: CliProcess[] = [];
  const clients: Client[] = [];
  const times = { memory: [] as number[], stored: [] as number[] };
  try {
    const worker = startCli(['worker', '--store', store], { cwd: space.root, env: space.env });
    started.push(worker);
    await waitFor('a worker to be ready', () => worker.stderr().includes(' ready ('));
    const connect = async (extra: string[]): Promise<Client> => {
      const serve = await startServe(space, extra);
      started.push(serve.cli);
      const client = new Client({ name: 'bench-durable', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
      clients.push(client);
      return client;
    };
    const memory = await connect([]);
    const stored = await connect(['--store', store]);
    const call = async (client: Client, into: number[] | undefined): Promise<void> => {
      const begun = performance.now();
      const reply = await client.callTool({ name: 'execute_code', arguments: { code: TRIVIAL } });
      const elapsed = performance.now() - begun;
      const content = reply.structuredContent as { success?: boolean; result?: unknown } | undefined;
      if (content?.success !== true || content.result !== 2)
        throw new Error(`bench execute_code: got ${JSON.stringify(reply).slice(0, 300)}`);
      into?.push(elapsed);
    };
    for (let rep = 0; rep < LATENCY_RUNS + 2; rep += 1) {
      // reps 0 and 1 warm up: the checker, sandboxes, connections
      await call(memory, rep > 1 ? times.memory : undefined);
      await call(stored, rep > 1 ? times.stored : undefined);
    }
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    for (const running of started) running.child.kill('SIGTERM');
    await Promise.all(started.map((running) => running.exited));
  }
  const local = median(times.memory);
  const durable = median(times.stored);
  console.error('bench durable: execute_code over MCP done');
  return `| \`execute_code\` of a trivial program (type-checked), an MCP client over Streamable HTTP (${LATENCY_RUNS} each, alternating): \`serve --http\` / \`serve --http --store\` with an \`agent-spaces worker\` process | ${local.toFixed(1)} / ${durable.toFixed(1)} ms | ${(durable / local).toFixed(2)}× (target ≤ 2×) |`;
}

/**
 * One trivial run at a time, in memory and through the store (submitRun over one shared StoreConnection,
 * as a serve replica submits execute_code) to `worker`, alternating; the medians of wall time and their ratio.
 */
async function trivialRunWait(store: string, config: Config, port: string, worker: string): Promise<string> {
  const memory = await openSpace({ config });
  const shared = await openStoreConnection(store, 3);
  const times = { memory: [] as number[], stored: [] as number[] };
  const cpu: Record<'memory' | 'stored', { cpu: number; lastMs?: number }> = { memory: { cpu: 0 }, stored: { cpu: 0 } };
  try {
    for (let rep = 0; rep < LATENCY_RUNS + 1; rep += 1) {
      // rep 0 warms up: sandboxes, connections
      const memorySide = rep > 0 ? cpu.memory : { cpu: 0 };
      const local = await measured(memorySide, port, () => memory.run(TRIVIAL, { check: false }));
      const storedSide = rep > 0 ? cpu.stored : { cpu: 0 };
      const durable = await measured(storedSide, port, () => submitRun({ store, code: TRIVIAL, check: false }, shared));
      if (local.result !== 2 || durable.result !== 2)
        throw new Error(`bench trivial run: got ${String(local.result)} / ${String(durable.result)}`);
      if (rep === 0) continue;
      times.memory.push(memorySide.lastMs ?? Number.NaN);
      times.stored.push(storedSide.lastMs ?? Number.NaN);
    }
  } finally {
    await shared.close();
    await memory.close();
  }
  const local = median(times.memory);
  const durable = median(times.stored);
  const cpuMs = (side: { cpu: number }): string => ((side.cpu * 1000) / LATENCY_RUNS).toFixed(1);
  console.error('bench durable: trivial run wait done');
  return `| one trivial run, submit to result (${LATENCY_RUNS} each, alternating): in memory / through the store (serve --store's path) to ${worker}; CPU a run, host tree + PostgreSQL | ${local.toFixed(1)} / ${durable.toFixed(1)} ms (CPU ${cpuMs(cpu.memory)} / ${cpuMs(cpu.stored)} ms) | ${(durable / local).toFixed(2)}× (target ≤ 2×) |`;
}

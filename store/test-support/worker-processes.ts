// `agent-spaces worker` processes for a test file: started on a durable space, waited for, killed
// with SIGKILL; every process still running is killed when the file ends (stopAll in afterAll).
import { afterAll, beforeAll } from 'vitest';
import type { DurableSpace, CliProcess } from './durable-space.js';
import { startCli } from './durable-space.js';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';

export interface WorkerProcesses {
  start(space: DurableSpace, store: string, extra?: string[]): CliProcess;
  /** Resolves when the worker printed that it is ready. */
  ready(worker: CliProcess): Promise<void>;
  killHard(worker: CliProcess): Promise<void>;
  /** Any CLI process (submitters, approvals) the file wants killed at its end too. */
  track(process: CliProcess): CliProcess;
  stopAll(): Promise<void>;
}

/** Waits for something a process does (expect.poll works only inside a test, not in beforeAll). */
export async function waitUntil(what: string, check: () => boolean, timeoutMs = 300_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function workerProcesses(): WorkerProcesses {
  const processes: CliProcess[] = [];
  const track = (running: CliProcess): CliProcess => {
    processes.push(running);
    return running;
  };
  return {
    track,
    start: (space, store, extra = []) =>
      track(startCli(['worker', '--store', store, '--verbose', ...extra], { cwd: space.root, env: space.env })),
    ready: (worker) =>
      waitUntil('the worker to be ready', () => worker.stderr().includes(' ready (') || worker.child.exitCode !== null).then(() => {
        if (!worker.stderr().includes(' ready (')) throw new Error(`the worker exited before it was ready:\n${worker.stderr()}`);
      }),
    async killHard(worker) {
      worker.child.kill('SIGKILL');
      await worker.exited;
    },
    async stopAll() {
      for (const running of processes) running.child.kill('SIGKILL');
      await Promise.all(processes.map((running) => running.exited));
    },
  };
}

/**
 * The store of a test file and its processes: a private PostgreSQL cluster started before the file's
 * tests; every worker and tracked CLI process killed, and the cluster removed, after them.
 */
export function useStoreForFile(): { readonly cluster: PostgresCluster; readonly workers: WorkerProcesses } {
  const workers = workerProcesses();
  let cluster: PostgresCluster | undefined;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });
  afterAll(async () => {
    await workers.stopAll();
    await cluster?.stop();
  });
  return {
    get cluster(): PostgresCluster {
      if (cluster === undefined) throw new Error('the cluster starts in beforeAll: use it in hooks and tests');
      return cluster;
    },
    workers,
  };
}

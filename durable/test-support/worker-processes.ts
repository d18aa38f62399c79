// `agent-spaces worker` processes for a test file: started on a durable space, waited for, killed
// with SIGKILL; every process still running is killed when the file ends (stopAll in afterAll).
import type { DurableSpace, CliProcess } from './durable-space.js';
import { startCli } from './durable-space.js';

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
    start: (space, store, extra = []) => track(startCli(['worker', '--store', store, '--verbose', ...extra], { cwd: space.root, env: space.env })),
    ready: (worker) => waitUntil('the worker to be ready', () => worker.stderr().includes(' ready (') || worker.child.exitCode !== null).then(() => {
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

import { DBOS, type DLogger } from '@dbos-inc/dbos-sdk';
import type { RunResult } from '../core/index.js';
import type { TaskResult } from '../planner/index.js';
import {
  APPLICATION_NAME,
  RUN_QUEUE,
  RUN_WORKFLOW,
  TASK_WORKFLOW,
  type DurableRunRequest,
  type DurableTaskRequest,
  type Pool,
} from '../store/internals.js';
import type { WorkExecutor } from './work-kinds.js';

/** The per-process executor the workflow functions reach (DBOS is one per process, so is a worker). */
let active: WorkExecutor | undefined;
let registered:
  { run: (request: DurableRunRequest) => Promise<RunResult>; task: (request: DurableTaskRequest) => Promise<TaskResult> } | undefined;

/** Whether a worker runs in this process already. */
export function workerIsActive(): boolean {
  return active !== undefined;
}

/** Makes `executor` the one this process's workflows run on (undefined: none, the worker stopped). */
export function setActiveExecutor(executor: WorkExecutor | undefined): void {
  active = executor;
}

/** Registers our two workflows with DBOS, once per process: each runs on the active executor. */
export function registerWorkflows(): void {
  registered ??= {
    run: DBOS.registerWorkflow(
      async (request: DurableRunRequest): Promise<RunResult> => {
        const runId = DBOS.workflowID;
        if (active === undefined || runId === undefined) throw new Error('no worker is active in this process');
        return active.execute(runId, request);
      },
      { name: RUN_WORKFLOW },
    ),
    task: DBOS.registerWorkflow(
      async (request: DurableTaskRequest): Promise<TaskResult> => {
        const taskId = DBOS.workflowID;
        if (active === undefined || taskId === undefined) throw new Error('no worker is active in this process');
        return active.executeTask(taskId, request);
      },
      { name: TASK_WORKFLOW },
    ),
  };
}

/** DBOS's configuration for this worker: our application, on `enginePool`, the schema made already. */
export function configureDbos(options: {
  store: string;
  enginePool: Pool;
  version: string;
  executorId: string;
  notice: (line: string) => void;
}): void {
  DBOS.setConfig({
    name: APPLICATION_NAME,
    systemDatabaseUrl: options.store,
    systemDatabasePool: options.enginePool,
    runMigrations: false,
    applicationVersion: options.version,
    executorID: options.executorId,
    logger: quietLogger(options.notice),
  });
}

/**
 * Launches DBOS and the run queue, taking `concurrency` runs at once and polling the queue every
 * `pollingMs` (long when notifications wake the worker: worker/queue-wake.ts).
 */
export async function launchDbos(concurrency: number, pollingMs: number): Promise<void> {
  await DBOS.launch();
  await DBOS.registerQueue(RUN_QUEUE, { workerConcurrency: concurrency, minPollingIntervalMs: pollingMs, onConflict: 'always_update' });
}

/** DBOS's own log lines: warnings and errors only, as notices. */
function quietLogger(notice: (line: string) => void): DLogger {
  const text = (entry: unknown): string =>
    entry instanceof Error ? entry.message : typeof entry === 'string' ? entry : JSON.stringify(entry);
  return {
    info: () => undefined,
    debug: () => undefined,
    // Its warnings are mostly of concurrent migrations by workers starting together (and of queue
    // contention); $AGENT_SPACES_DEBUG shows them.
    warn: (entry) => {
      if (process.env.AGENT_SPACES_DEBUG) notice(`dbos: ${text(entry)}`);
    },
    error: (entry) => notice(`dbos: ${text(entry)}`),
  };
}

// The durable worker: a composition root above space/ (beside the CLI) that runs the store's queued
// runs and planner tasks with a space. Nothing here loads DBOS or pg until a function is called.
import type { SubmitTaskOptions, StoreConnection } from '../store/index.js';
import type { TaskResult } from '../planner/index.js';
import type { DurableWorker, WorkerOptions } from './worker.js';

export type { DurableWorker, WorkerOptions } from './worker.js';

/** Starts a worker executing the store's queued runs (see `startWorker` in worker/worker.ts). */
export async function startWorker(options: WorkerOptions): Promise<DurableWorker> {
  return (await import('./worker.js')).startWorker(options);
}

/** Submits a planner task to the store and waits for a worker's `executeTask` result (see store/submit-run.ts). */
export async function submitTask(options: SubmitTaskOptions, shared?: StoreConnection): Promise<TaskResult> {
  return (await import('../store/index.js')).submitTask<TaskResult>(options, shared);
}

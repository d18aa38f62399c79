import { randomUUID } from 'node:crypto';
import { errorMessage } from '../../core/index.js';
import { submitTask } from '../../store/index.js';
import { executeTask, resolveModelSettings, type PlannerEvent, type TaskResult } from '../../planner/index.js';
import type { StudioContext } from './studio-context.js';
import { StudioError } from './studio-error.js';
import { followStoredRun, type StudioStore } from './studio-store.js';
import type { TaskRunView } from './wire-types.js';

export type { TaskRunView };

/**
 * Runs a planner task from the playground, as `agent-spaces task` does: in this process with the
 * config's model (its trace goes to the run folder), or, with a store, queued there for a worker
 * (its steps, the worker taking it, its approvals and result come back as events). Each planner
 * event goes to the page as a `task-event`.
 */
export async function runTask(context: StudioContext, task: string): Promise<TaskRunView> {
  if (task.trim() === '') throw new StudioError('STUDIO_BAD_REQUEST', 'request body: "task" must say in words what to do');
  const taskId = `task-${randomUUID()}`;
  const publish = (event: PlannerEvent | unknown): void =>
    context.events.publish({ type: 'task-event', runId: taskId, event: context.redact(event) });
  if (context.store) return runInStore(context, context.store, taskId, task, publish);
  try {
    resolveModelSettings({}, context.config.model);
  } catch (error) {
    throw new StudioError('STUDIO_NO_MODEL', `a task needs a model: ${errorMessage(error)}. Restart the studio after setting it.`, {
      cause: error,
    });
  }
  const result = await executeTask(task, { space: context.space, taskId, onEvent: publish });
  context.events.publish({ type: 'run-end', runId: taskId, success: result.success });
  return view(context, result);
}

async function runInStore(
  context: StudioContext,
  store: StudioStore,
  taskId: string,
  task: string,
  publish: (event: unknown) => void,
): Promise<TaskRunView> {
  const followed = followStoredRun(store, context.events, context.redact, taskId, publish);
  let result: TaskResult;
  try {
    result = await submitTask<TaskResult>(
      { store: store.url, task, runId: taskId, signal: followed.signal, onEvent: followed.onEvent, onNoWorker: followed.onNoWorker },
      store.connection,
    );
  } finally {
    followed.done();
  }
  context.events.publish({ type: 'run-end', runId: taskId, success: result.success });
  return { ...view(context, result), ...(followed.worker ? { worker: followed.worker } : {}) };
}

function view(context: StudioContext, result: TaskResult): TaskRunView {
  return context.redact({
    taskId: result.taskId,
    success: result.success,
    summary: result.finalSummary,
    ...(result.result === undefined ? {} : { result: result.result }),
    error: result.error,
    steps: result.budgetUsage.steps,
    logs: result.logs,
  });
}

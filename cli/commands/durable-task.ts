import { submitTask } from '../../worker/index.js';
import type { PlannerEvent } from '../../planner/index.js';
import { followInStore, type OwnEvent } from '../follow-in-store.js';
import { printJson, printText, UsageError } from '../output.js';
import { printProgress, type TaskCommandOptions } from './task.js';

/**
 * `agent-spaces task` with a store: the task is queued, a worker runs it (resumed by another after
 * its last finished model step if that worker dies), its progress and summary come back here.
 */
export async function durableTaskCommand(options: TaskCommandOptions & { task: string; store: string }): Promise<number> {
  if (options.replay !== undefined || options.trace !== undefined)
    throw new UsageError('--replay and --trace do not apply to a task in a store: the worker keeps its trace');
  if (options.studio !== undefined)
    throw new UsageError('--studio does not apply to a task in a store: decide its approvals with "agent-spaces approvals"');
  const follow = {
    store: options.store,
    kind: 'task' as const,
    ...(options.approve !== undefined ? { approve: options.approve } : {}),
    onOwnEvent: (event: OwnEvent) => {
      if (event.kind === 'planner') printProgress(event.event as PlannerEvent);
    },
  };
  const result = await followInStore(follow, (hooks) =>
    submitTask({
      store: options.store,
      task: options.task,
      ...(options.context ? { context: options.context } : {}),
      model: { ...(options.model ? { model: options.model } : {}), ...(options.baseURL ? { baseURL: options.baseURL } : {}) },
      budget: options.budget as Record<string, number>,
      ...hooks,
    }),
  );
  if (options.json) printJson(result);
  else printText(`${result.finalSummary}${result.result !== undefined ? `\n${JSON.stringify(result.result, null, 2)}` : ''}`);
  return result.success ? 0 : 1;
}

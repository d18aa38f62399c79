import { openApprovals, submitTask, type DurableRunEvent } from '../../durable/index.js';
import type { PlannerEvent } from '../../planner/index.js';
import { printJson, printText, progress, UsageError } from '../output.js';
import { printProgress, type TaskCommandOptions } from './task.js';

/**
 * `agent-spaces task` with a store: the task is queued, a worker runs it (resumed by another after
 * its last finished model step if that worker dies), its progress and summary come back here.
 */
export async function durableTaskCommand(options: TaskCommandOptions & { task: string; store: string }): Promise<number> {
  if (options.replay !== undefined || options.trace !== undefined) throw new UsageError('--replay and --trace do not apply to a task in a store: the worker keeps its trace');
  if (options.studio !== undefined) throw new UsageError('--studio does not apply to a task in a store: decide its approvals with "agent-spaces approvals"');
  if (options.approve !== undefined && options.approve !== 'all' && options.approve !== 'none') throw new UsageError(`--approve takes "all" or "none" (got "${options.approve}")`);
  const approvals = options.approve === undefined ? undefined : await openApprovals(options.store);
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  try {
    const result = await submitTask({
      store: options.store,
      task: options.task,
      ...(options.context ? { context: options.context } : {}),
      model: { ...(options.model ? { model: options.model } : {}), ...(options.baseURL ? { baseURL: options.baseURL } : {}) },
      budget: options.budget as Record<string, number>,
      signal: controller.signal,
      onNoWorker: (taskId) => progress(`task ${taskId} queued; no worker is running — start \`agent-spaces worker\``),
      onEvent: (event: DurableRunEvent) => {
        if (event.kind === 'planner') printProgress(event.event as PlannerEvent);
        else if (event.kind === 'started' && event.attempt > 1) progress(`task taken over by worker ${event.executorId} (attempt ${event.attempt}; ${event.replayedCalls} model replies and calls answered from the store)`);
        else if (event.kind === 'approval-required') {
          progress(`[approval] ${event.capability}.${event.function}: ${event.message}\n  waiting: agent-spaces approvals approve ${event.approvalId}  (or deny)`);
          if (approvals !== undefined) void approvals.decide(event.approvalId, { approved: options.approve === 'all', reason: `by --approve ${options.approve ?? ''}` }).catch(() => undefined);
        }
      },
    });
    if (options.json) printJson(result);
    else printText(`${result.finalSummary}${result.result !== undefined ? `\n${JSON.stringify(result.result, null, 2)}` : ''}`);
    return result.success ? 0 : 1;
  } finally {
    process.off('SIGINT', stop);
    await approvals?.close();
  }
}

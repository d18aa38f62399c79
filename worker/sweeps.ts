import { DBOS, type GetWorkflowsInput } from '@dbos-inc/dbos-sdk';
import { errorMessage } from '../core/index.js';
import { notifyRunsQueued, parseDuration, pruneOnce, RUN_QUEUE, RUN_WORKFLOW, TASK_WORKFLOW, whileDead } from '../store/internals.js';
import type { DurableSettings, WorkerState } from './worker-state.js';

/**
 * Every `intervalMs`, the runs of dead workers (PENDING in DBOS under an executor whose liveness lock is
 * free) go back to the queue; one sweep at a time.
 */
export function startTakeoverSweep(state: WorkerState, version: string, intervalMs: number): NodeJS.Timeout {
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping || state.closing) return;
    sweeping = true;
    takeOverDeadWorkers(state, version)
      .catch((error: unknown) => state.notice(`looking for runs of dead workers failed: ${errorMessage(error)}`))
      .finally(() => {
        sweeping = false;
      });
  }, intervalMs);
  timer.unref();
  return timer;
}

async function takeOverDeadWorkers(state: WorkerState, version: string): Promise<void> {
  const pending = await DBOS.listWorkflows({
    status: 'PENDING',
    workflowName: [RUN_WORKFLOW, TASK_WORKFLOW],
    applicationVersion: version,
    loadInput: false,
    loadOutput: false,
  });
  const executors = new Set(
    pending.map((status) => status.executorId).filter((id): id is string => id !== undefined && id !== state.executorId),
  );
  for (const dead of executors) {
    await whileDead(state.pool, dead, async () => {
      const orphans = await DBOS.listWorkflows({
        status: 'PENDING',
        workflowName: [RUN_WORKFLOW, TASK_WORKFLOW],
        executorId: dead,
        applicationVersion: version,
        loadInput: false,
        loadOutput: false,
      });
      if (orphans.length === 0) return;
      const ids = orphans.map((status) => status.workflowID);
      await DBOS.resumeWorkflows(ids, { queueName: RUN_QUEUE });
      // Every worker listening hears of them now (from the store's trigger, or from here where it is missing).
      await notifyRunsQueued(state.store, state.pool, ids);
      state.notice(
        `worker ${dead} is gone: its ${orphans.length} run(s) went back to the queue (${orphans.map((status) => status.workflowID).join(', ')})`,
      );
    });
  }
}

/** The config's retention, in ms (at most one round a second, whatever the config says); undefined without one. */
export function retentionOf(durable: DurableSettings): { olderThanMs: number; intervalMs: number } | undefined {
  if (durable.retention === undefined) return undefined;
  return {
    olderThanMs: parseDuration(durable.retention.olderThan, 'durable.retention.olderThan'),
    intervalMs: Math.max(1000, parseDuration(durable.retention.interval ?? '1h', 'durable.retention.interval')),
  };
}

/**
 * Retention: every interval (and once at start), the rows of runs that ended longer than `olderThan`
 * ago go; one worker at a time prunes (the others find its lock taken and skip).
 */
export function startRetention(state: WorkerState, settings: { olderThanMs: number; intervalMs: number }): NodeJS.Timeout {
  const { durable, notice } = state;
  const dbosWorkflows = {
    listWorkflows: (input: GetWorkflowsInput) => DBOS.listWorkflows(input),
    deleteWorkflows: (ids: string[]) => DBOS.deleteWorkflows(ids),
  };
  let pruning = false;
  const round = (): void => {
    if (pruning || state.closing) return;
    pruning = true;
    pruneOnce(state.pool, dbosWorkflows, new Date(Date.now() - settings.olderThanMs))
      .then((report) => {
        if (report === undefined || report.runs + report.a2aTasks + report.agentSessions === 0) return;
        notice(
          `retention: deleted the rows of ${report.runs} run(s), ${report.a2aTasks} A2A task(s) and ${report.agentSessions} agent session(s) that ended before the last ${durable.retention?.olderThan ?? ''}`,
        );
      })
      .catch((error: unknown) => {
        if (!state.closing)
          notice(`retention: pruning the store failed (tried again in ${durable.retention?.interval ?? '1h'}): ${errorMessage(error)}`);
      })
      .finally(() => {
        pruning = false;
      });
  };
  round();
  const timer = setInterval(round, settings.intervalMs);
  timer.unref();
  return timer;
}

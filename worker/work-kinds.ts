import type { RunResult } from '../core/index.js';
import { executeTask, type TaskResult } from '../planner/index.js';
import type { Space } from '../space/index.js';
import type { DurableError, DurableRunRequest, DurableTaskRequest } from '../store/internals.js';
import { runAttempt } from './attempt.js';
import { openModelJournal } from './model-journal.js';
import { taskModel } from './task-model.js';
import type { WorkerState } from './worker-state.js';

/** What the workflow functions of this process call: an attempt at a code run, or at a planner task. */
export interface WorkExecutor {
  execute(runId: string, request: DurableRunRequest): Promise<RunResult>;
  executeTask(taskId: string, request: DurableTaskRequest): Promise<TaskResult>;
}

/** The two kinds of durable work, executed with the worker's space, results redacted with its secrets. */
export function createWorkExecutor(state: WorkerState, space: Space): WorkExecutor {
  const redact = <T>(value: T): T => state.storeWriter.redact(value);
  return {
    execute: (runId, request) =>
      runAttempt<RunResult>(state, runId, {
        kind: 'run',
        modelReplies: 0,
        perform: ({ signal, priorLogs, report }) => {
          // A replay writes the same log lines again: the submitter saw the earlier attempts' lines already.
          let logsToSkip = priorLogs;
          return space.run(request.code, {
            runId,
            check: request.check,
            signal,
            ...(request.limits ? { limits: request.limits } : {}),
            ...(request.session ? { session: request.session } : {}),
            onLog: (log) => {
              if (logsToSkip > 0) logsToSkip -= 1;
              else report({ kind: 'log', log: redact(log) });
            },
          });
        },
        settle: (result, journal) => {
          // However the program ended, an in-flight call of an earlier attempt it did not make again ends it
          // OUTCOME_UNKNOWN; one that succeeded must also have made every journaled call again.
          const fatal: DurableError | undefined = journal.fatal ?? journal.finish({ divergence: result.success });
          return redact(
            fatal === undefined
              ? result
              : { ...result, success: false, result: undefined, error: { name: fatal.name, code: fatal.code, message: fatal.message } },
          );
        },
        outcome: (result) => (result.success ? 'succeeded' : `failed: ${result.error?.code ?? ''} ${result.error?.message ?? ''}`),
      }),
    async executeTask(taskId, request) {
      const model = await openModelJournal(state.pool, taskId);
      return runAttempt<TaskResult>(state, taskId, {
        kind: 'task',
        modelReplies: model.replayed,
        perform: ({ signal, report }) =>
          executeTask(request.task, {
            space,
            taskId,
            signal,
            wrapModelClient: model.wrap,
            ...(request.context ? { context: request.context } : {}),
            ...(request.model ? { model: taskModel(request.model, space.config.model) } : {}),
            ...(request.budget ? { budget: request.budget } : {}),
            onEvent: (event) => report({ kind: 'planner', event: redact(event) }),
          }),
        settle: (result, journal) => {
          // A task whose earlier attempt left a call in flight ends OUTCOME_UNKNOWN unless it made that call again.
          const fatal = journal.fatal ?? journal.finish({ divergence: false });
          // The budget's counts (`tokens: { … }`) pass: the redactor keeps numbers under secret-looking keys.
          return redact(fatal === undefined ? result : { ...result, success: false, finalSummary: `${fatal.code}: ${fatal.message}` });
        },
        outcome: (result) => (result.success ? 'succeeded' : 'failed'),
      });
    },
  };
}

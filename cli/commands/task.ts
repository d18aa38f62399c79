import { openSpace } from '../../agents/index.js';
import { isFile } from '../file-kind.js';
import {
  executeTask,
  ModelError,
  readTrace,
  type Budget,
  type ExecuteTaskOptions,
  type PlannerEvent,
  type TaskResult,
} from '../../planner/index.js';
import { loadConfig } from '../../config/index.js';
import { createCliApprovalHandler } from '../approval-prompt.js';
import { buildForRun } from '../build-report.js';
import { createStudioApprovals, studioAddressFrom } from '../studio-approvals.js';
import { printJson, printText, progress, UsageError } from '../output.js';
import { storeOf } from '../store-option.js';

export interface TaskCommandOptions {
  cwd: string;
  config?: string;
  /** The task in words; with `replay`, defaults to the recorded task. */
  task?: string;
  json: boolean;
  trace?: string;
  replay?: string;
  budget: Partial<Budget>;
  approve?: string;
  /** A studio's address (token included): its Approvals inbox decides the calls that require approval. */
  studio?: string;
  model?: string;
  baseURL?: string;
  context?: string;
  /** A durable runs' store: the task is queued there and run by a worker. */
  store?: string;
}

/** `agent-spaces task "<task>"`: progress on stderr, the summary (or `--json` TaskResult) on stdout. */
export async function taskCommand(options: TaskCommandOptions): Promise<number> {
  if (options.replay !== undefined && !isFile(options.replay))
    throw new UsageError(
      `--replay ${options.replay}: no such file (a task writes its trace to <outDir>/runs/<id>/trace.jsonl, or to the file given with --trace)`,
    );
  const recorded = options.replay ? await readTrace(options.replay) : undefined;
  const task = options.task ?? recorded?.task;
  if (!task) throw new UsageError('task needs a task in words: agent-spaces task "<task>" (or --replay <trace>)');
  const config = await loadConfig({ cwd: options.cwd, ...(options.config ? { file: options.config } : {}) });
  const store = storeOf(options.store, config);
  if (store !== undefined) return (await import('./durable-task.js')).durableTaskCommand({ ...options, task, store });
  const studioAddress = studioAddressFrom(options.studio, options.approve);
  const studio = studioAddress ? createStudioApprovals(studioAddress, { kind: 'task', cwd: options.cwd, detail: task }) : undefined;
  const approvalHandler = studio?.handler ?? createCliApprovalHandler(options.approve);
  const model = {
    ...((options.model ?? recorded?.model) ? { model: options.model ?? recorded?.model } : {}),
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
  };
  // The space is opened here so that the config's agents are capabilities of the task too.
  const space = await openSpace({
    config,
    ...(approvalHandler ? { approvalHandler } : {}),
    ...(studio ? { onEvent: studio.onEvent } : {}),
  });
  studio?.useSecrets(space.secrets);
  if (studio) progress(`approvals: asked in the studio at ${studio.origin}`);
  const taskOptions: ExecuteTaskOptions = {
    space,
    ...(recorded ? { replay: recorded.replies } : {}),
    ...(options.trace ? { trace: options.trace } : {}),
    ...(options.context ? { context: options.context } : {}),
    model,
    budget: options.budget,
    onEvent: printProgress,
  };
  if (recorded) progress(`replaying ${recorded.replies.length} recorded model replies from ${options.replay ?? ''}`);
  let result: TaskResult;
  try {
    // As before a run: what is out of date is built (saying so), and a module kept stale is warned of.
    await buildForRun(space);
    result = await executeTask(task, taskOptions);
  } catch (error) {
    studio?.close();
    await space.close();
    // An endpoint that cannot be reached or refuses the key is a configuration problem.
    if (error instanceof ModelError && (error.code === 'MODEL_UNREACHABLE' || error.code === 'MODEL_AUTH_FAILED')) {
      progress(`agent-spaces: ${error.message}`);
      return 2;
    }
    throw error;
  }
  studio?.close();
  await space.close();
  if (options.json) printJson(result);
  else printText(`${result.finalSummary}${result.result !== undefined ? `\n${JSON.stringify(result.result, null, 2)}` : ''}`);
  return result.success ? 0 : 1;
}

export function printProgress(event: PlannerEvent): void {
  switch (event.type) {
    case 'task-start':
      progress(
        `task ${event.taskId} with ${event.model} (${event.baseURL}); budget ${event.budget.maxSteps} steps, ${event.budget.maxToolCalls} tool calls, ${event.budget.maxCodeRuns} code runs, $${event.budget.maxLlmCostUsd}`,
      );
      break;
    case 'model-reply': {
      const calls = event.reply.message.tool_calls?.map((call) => (call.type === 'function' ? call.function.name : call.type)) ?? [];
      progress(
        `[step ${event.step}] ${calls.length > 0 ? calls.join(', ') : 'no function call'} — $${event.usage.llmCostUsd.toFixed(4)} so far`,
      );
      if (event.note) progress(`  note: ${event.note}`);
      break;
    }
    case 'search-run':
      progress(`  search "${event.query}" → ${event.matches} of ${event.total}`);
      break;
    case 'tool-call':
      progress(
        `  call ${event.name} ${event.ok ? 'ok' : `failed: ${event.error?.code ?? ''} ${event.error?.message ?? ''}`} (${Math.round(event.durationMs)} ms)`,
      );
      break;
    case 'call-rejected':
      progress(`  ${event.function} rejected: ${event.message}`);
      break;
    case 'code-run':
      progress(
        `  code run ${event.ok ? 'ok' : `failed: ${event.error?.code ?? ''}`}, ${event.calls} call${event.calls === 1 ? '' : 's'} (${Math.round(event.durationMs)} ms)${event.counted ? '' : ' [not counted: did not type-check]'}`,
      );
      break;
    case 'summary-created':
      progress(`  large result (${event.originalChars} chars) summarised; full data at ${event.storageRef ?? '-'}`);
      break;
    case 'budget-exceeded':
      progress(`  ${event.message}`);
      break;
    case 'task-finish': {
      const usage = event.usage;
      progress(
        `${event.success ? '✓ finished' : `✗ ${event.error ?? 'failed'}`} — ${usage.steps} steps, ${usage.toolCalls} tool calls, ${usage.codeRuns} code runs, $${usage.llmCostUsd.toFixed(4)}`,
      );
      break;
    }
  }
}

/** Reads `--budget-*` options into a partial budget; bad numbers are usage errors. */
export function parseBudgetOptions(values: { [flag: string]: unknown }): Partial<Budget> {
  const budget: Partial<Budget> = {};
  const fields: [string, keyof Budget, boolean][] = [
    ['budget-steps', 'maxSteps', true],
    ['budget-tool-calls', 'maxToolCalls', true],
    ['budget-code-runs', 'maxCodeRuns', true],
    ['budget-cost', 'maxLlmCostUsd', false],
  ];
  for (const [flag, key, integer] of fields) {
    const raw = values[flag];
    if (typeof raw !== 'string') continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
      throw new UsageError(`--${flag} takes ${integer ? 'a whole number' : 'a number of US dollars'} ≥ 0 (got "${raw}")`);
    }
    budget[key] = value;
  }
  return budget;
}

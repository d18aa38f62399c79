import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { ChatCompletionAssistantMessageParam, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { accessFromIds, createRedactor, errorMessage, type CallAccess, type Redactor } from '../core/index.js';
import { createSpace, TASK_STORAGE_MODULE, type Space } from '../space/index.js';
import { describeBreach, emptyUsage, resolveBudget, type Budget, type BudgetUsage } from './budget.js';
import { buildContext, type Turn } from './build-context.js';
import type { Catalog, CatalogEntry } from './catalog-types.js';
import { createModelClient, createReplayModelClient, type ModelClient, type ModelReply } from './model-client.js';
import { parseArguments } from './parse-arguments.js';
import { performToolCall, type CallOutcome } from './perform-tool-call.js';
import type { EmitPlannerEvent, PlannerEvent } from './planner-event.js';
import { findPrice, priceUsage, readUsage, type ModelPrice } from './prices.js';
import { buildSystemPrompt, buildTaskMessage } from './prompt.js';
import { resolveModelSettings, resolvePrices } from './resolve-model-settings.js';
import {
  callBreachedBudget,
  cancelledBy,
  costExceeds,
  finishCalled,
  firstStop,
  isCancelled,
  stepCountIs,
  type StopCondition,
  type TaskStop,
} from './stop-conditions.js';
import { currentUsage, log, type TaskRun } from './task-run.js';
import { startTaskSpans, type TaskSpans } from './task-spans.js';
import type { StepCall, TaskStep } from './task-step.js';
import type { ExecuteTaskOptions, TaskResult } from './task-types.js';
import { createTraceWriter } from './trace-file.js';

const DEFAULT_CONTEXT_LIMIT_CHARS = 60_000;
const DEFAULT_SUMMARIZE_ABOVE_CHARS = 4_000;
const NO_CALL_NUDGE =
  'Your reply called no function. Every reply must call search_tools, call_tool, run_code or finish; if the task is done, call finish with your summary.';

/**
 * Gives a task in words to the model, which works through the space's capabilities with four functions
 * (search_tools, call_tool, run_code, finish) within a budget, and returns a structured result. Throws
 * before any work for a missing key (`ConfigError`) or an unreachable endpoint (`ModelError`); every
 * later failure (a budget breach, a failed model request, cancellation) is a result with `success: false`.
 *
 * @example
 * const result = await executeTask('Which morning trains leave Central, and what is the weather there?', { cwd: 'my-space' });
 * console.log(result.finalSummary, result.budgetUsage.llmCostUsd);
 */
export async function executeTask(task: string, options: ExecuteTaskOptions = {}): Promise<TaskResult> {
  const taskId = options.taskId ?? randomUUID();
  const limits = resolveBudget(options.budget);
  const space =
    options.space ??
    (await createSpace({
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.configFile ? { configFile: options.configFile } : {}),
      ...(options.approvalHandler ? { approvalHandler: options.approvalHandler } : {}),
    }));
  try {
    const config = space.config;
    let client: ModelClient;
    let apiKey: string | undefined;
    if (options.replay) {
      client = createReplayModelClient(options.replay, options.model?.model ?? config.model.model ?? 'replay');
    } else {
      const settings = resolveModelSettings(options.model, config.model);
      apiKey = settings.apiKey;
      client = createModelClient(settings);
    }
    if (options.wrapModelClient) client = options.wrapModelClient(client);
    await client.check(options.signal);
    const redactor = createRedactor({
      secrets: [...(apiKey ? [{ value: apiKey, label: 'model API key', strength: 'strong' as const }] : []), ...space.secrets],
    });
    return await runTask({ task, taskId, space, client, redactor, limits, options });
  } finally {
    if (!options.space) await space.close();
  }
}

/** A task whose space and model client are ready. */
interface TaskSetup {
  readonly task: string;
  readonly taskId: string;
  readonly space: Space;
  readonly client: ModelClient;
  readonly redactor: Redactor;
  readonly limits: Budget;
  readonly options: ExecuteTaskOptions;
}

async function runTask({ task, taskId, space, client, redactor, limits, options }: TaskSetup): Promise<TaskResult> {
  const runDir = path.resolve(options.runDir ?? path.join(space.config.outDir, 'runs', taskId));
  const traceFile = options.trace === false ? undefined : path.resolve(options.trace ?? path.join(runDir, 'trace.jsonl'));
  const writeTrace = traceFile ? createTraceWriter(traceFile) : undefined;
  const { catalog, access } = restrictCatalog(await space.catalog(), options.tools?.allow);
  const usage = emptyUsage(limits);
  const emit: EmitPlannerEvent = (partial) => {
    const event = redactor({ ...partial, taskId, step: usage.steps, timestamp: new Date().toISOString() } as PlannerEvent);
    writeTrace?.(event);
    try {
      options.onEvent?.(event);
    } catch {
      // A listener's fault must not end the task.
    }
  };
  const run: TaskRun = {
    taskId,
    session: options.session ?? `task:${taskId}`,
    space,
    catalog,
    access,
    usage,
    redactor,
    emit,
    logs: [],
    rawOutputs: [],
    runDir,
    stored: new Map(),
    summarizeAboveChars: options.summarizeAboveChars ?? DEFAULT_SUMMARIZE_ABOVE_CHARS,
    signal: options.signal,
  };
  const spans = startTaskSpans(await space.tracer(), { taskId, model: client.model, parent: options.traceparent });
  emit({ type: 'task-start', task: redactor.text(task), model: client.model, baseURL: client.baseURL, budget: limits });

  const price = findPrice(client.model, resolvePrices(options.model, space.config.model));
  const priceNote = price
    ? undefined
    : `no price known for model "${client.model}": its cost is counted as $0; add it to model.prices (USD per million tokens) to enforce maxLlmCostUsd`;
  if (priceNote) run.logs.push(priceNote);

  const stop = await runSteps(run, {
    client,
    spans,
    head: [
      { role: 'system', content: redactor.text(buildSystemPrompt(options.systemPrompt)) },
      { role: 'user', content: redactor.text(buildTaskMessage(task, options.context)) },
    ],
    contextLimitChars: options.contextLimitChars ?? DEFAULT_CONTEXT_LIMIT_CHARS,
    price,
    priceNote,
    stopWhen: [isCancelled(options.signal), stepCountIs(limits.maxSteps), costExceeds(limits.maxLlmCostUsd)],
    interruptWhen: [finishCalled, callBreachedBudget, costExceeds(limits.maxLlmCostUsd)],
  });
  return finishTask(run, spans, stop);
}

/**
 * The catalog the model may see and the access the bridge enforces: everything, or what `allow` lets
 * through. The task's own stored results stay readable whatever the caller allows: they came from allowed calls.
 */
function restrictCatalog(
  full: Catalog,
  allow: ((entry: CatalogEntry) => boolean) | undefined,
): { catalog: Catalog; access: CallAccess | undefined } {
  const functions = allow ? full.functions.filter((entry) => entry.module === TASK_STORAGE_MODULE || allow(entry)) : full.functions;
  const modules = full.modules
    .map((module) => ({ ...module, functions: functions.filter((entry) => entry.module === module.module).length }))
    .filter((module) => module.functions > 0);
  return {
    catalog: { ...full, functions, modules },
    access: allow
      ? accessFromIds(
          functions.map((entry) => entry.id),
          'this task',
        )
      : undefined,
  };
}

interface StepLoopOptions {
  readonly client: ModelClient;
  readonly spans: TaskSpans;
  /** The system prompt and the task, sent with every request. */
  readonly head: ChatCompletionMessageParam[];
  readonly contextLimitChars: number;
  readonly price: ModelPrice | undefined;
  /** Said once, with the first reply: why its cost is counted as $0. */
  readonly priceNote: string | undefined;
  /** Checked before each step, over the steps so far: the first that answers ends the task. */
  readonly stopWhen: readonly StopCondition[];
  /** Checked after the model's reply and after each call, over the step in progress; the step's later calls are not made. */
  readonly interruptWhen: readonly StopCondition[];
}

/** A step being made: its calls are appended as they are performed. */
interface StepInProgress extends TaskStep {
  readonly calls: StepCall[];
}

/** Asks the model, performs the calls of its reply, and again, until a stop condition answers or a fault ends the task. */
async function runSteps(run: TaskRun, loop: StepLoopOptions): Promise<TaskStop> {
  const steps: TaskStep[] = [];
  const turns: Turn[] = [];
  let priceNote = loop.priceNote;
  for (;;) {
    const stop = firstStop(loop.stopWhen, { steps, usage: run.usage });
    if (stop) return stop;
    const number = ++run.usage.steps;
    const traceparent = loop.spans.startStep(number);
    const context = buildContext(loop.head, turns, loop.contextLimitChars);
    let reply: ModelReply;
    try {
      reply = await loop.spans.traceChat(() => loop.client.complete(context.messages, run.signal));
    } catch (error) {
      return faultStop(run, errorMessage(error));
    }
    const step: StepInProgress = { number, reply, costUsd: countReply(run.usage, reply, loop.price), calls: [] };
    run.emit({
      type: 'model-reply',
      reply,
      costUsd: step.costUsd,
      usage: currentUsage(run.usage),
      ...(priceNote ? { note: priceNote } : {}),
    });
    priceNote = undefined;
    steps.push(step);
    const afterReply = firstStop(loop.interruptWhen, { steps, usage: run.usage });
    if (afterReply) return afterReply;
    const answered = await answerReply(run, steps, step, { traceparent, interruptWhen: loop.interruptWhen });
    if ('stop' in answered) return answered.stop;
    turns.push(answered.turn);
  }
}

/** Adds a reply's tokens and estimated cost to the usage; returns the cost. */
function countReply(usage: BudgetUsage, reply: ModelReply, price: ModelPrice | undefined): number {
  const tokens = readUsage(reply.usage);
  const costUsd = price ? priceUsage(tokens, price) : 0;
  usage.tokens.input += tokens.input;
  usage.tokens.cachedInput += tokens.cachedInput;
  usage.tokens.output += tokens.output;
  usage.llmCostUsd += costUsd;
  return costUsd;
}

/** Performs the calls of the step's reply in order; the turn the model sees next, or why the task stops. */
async function answerReply(
  run: TaskRun,
  steps: readonly TaskStep[],
  step: StepInProgress,
  context: { traceparent: string | undefined; interruptWhen: readonly StopCondition[] },
): Promise<{ stop: TaskStop } | { turn: Turn }> {
  const calls = step.reply.message.tool_calls ?? [];
  const content = step.reply.message.content;
  const assistant: ChatCompletionAssistantMessageParam = {
    role: 'assistant',
    content: content === null ? null : run.redactor.text(content),
    ...(calls.length > 0 ? { tool_calls: run.redactor(calls) } : {}),
  };
  if (calls.length === 0) {
    log(run, 'the reply called no function (asked the model to call one)');
    return {
      turn: {
        messages: [
          { ...assistant, content: assistant.content || '(no text)' },
          { role: 'user', content: NO_CALL_NUDGE },
        ],
        digest: `step ${step.number}: replied without calling a function`,
      },
    };
  }
  const answers: ChatCompletionMessageParam[] = [];
  const digests: string[] = [];
  for (const call of calls) {
    const parsed =
      call.type === 'function'
        ? parseArguments(call.function.name, call.function.arguments)
        : { tool: 'invalid' as const, error: 'only function calls are understood' };
    let outcome: CallOutcome;
    try {
      outcome = await performToolCall(run, parsed, {
        functionName: call.type === 'function' ? call.function.name : call.type,
        traceparent: context.traceparent,
      });
    } catch (error) {
      // A fault of the host (a sandbox that cannot start, a closed space), not of the model's reply.
      return { stop: faultStop(run, `${parsed.tool} failed on the host: ${errorMessage(error)}`) };
    }
    step.calls.push({ id: call.id, outcome });
    const stop = firstStop(context.interruptWhen, { steps, usage: run.usage });
    if (stop) return { stop };
    answers.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
    digests.push(outcome.digest);
  }
  return { turn: { messages: [assistant, ...answers], digest: digests.join('; ') } };
}

/** A model request or a call that threw: cancellation when the caller aborted, else a failure in the logs. */
function faultStop(run: TaskRun, message: string): TaskStop {
  if (run.signal?.aborted) return cancelledBy(run.signal);
  run.logs.push(run.redactor.text(`step ${run.usage.steps}: ${message}`));
  return { kind: 'failed', error: message };
}

/** The task's result for the reason it stopped; ends its spans and emits `task-finish`. */
function finishTask(run: TaskRun, spans: TaskSpans, stop: TaskStop): TaskResult {
  switch (stop.kind) {
    case 'finished':
      log(run, 'finish');
      return taskResult(run, spans, { success: true, summary: stop.summary, error: null, result: stop.result });
    case 'budget': {
      const message = describeBreach(stop.limit, run.usage);
      run.emit({ type: 'budget-exceeded', limit: stop.limit, message, usage: currentUsage(run.usage) });
      run.logs.push(message);
      return failedResult(run, spans, message);
    }
    case 'cancelled':
      return failedResult(run, spans, `cancelled: ${stop.reason}`);
    case 'failed':
      return failedResult(run, spans, stop.error);
  }
}

function failedResult(run: TaskRun, spans: TaskSpans, error: string): TaskResult {
  return taskResult(run, spans, { success: false, summary: partialSummary(run.logs, error), error });
}

function taskResult(
  run: TaskRun,
  spans: TaskSpans,
  end: { success: boolean; summary: string; error: string | null; result?: unknown },
): TaskResult {
  const finalSummary = run.redactor.text(end.summary);
  spans.end(end.success, run.usage);
  run.emit({ type: 'task-finish', success: end.success, summary: finalSummary, error: end.error, usage: currentUsage(run.usage) });
  return {
    taskId: run.taskId,
    success: end.success,
    finalSummary,
    ...(end.result !== undefined ? { result: run.redactor(end.result) } : {}),
    rawOutputs: run.rawOutputs,
    budgetUsage: currentUsage(run.usage),
    logs: run.logs,
    error: end.error === null ? null : run.redactor.text(end.error),
    runDir: run.runDir,
  };
}

/** What was done before the task stopped, from the logs: no model call is spent on it. */
function partialSummary(logs: string[], error: string): string {
  const done = logs.filter((line) => line.startsWith('step '));
  if (done.length === 0) return `The task stopped before anything was done: ${error}.`;
  const shown = done.length > 20 ? [`… ${done.length - 20} earlier actions`, ...done.slice(-20)] : done;
  return `The task stopped before it was finished: ${error}. Done so far:\n${shown.map((line) => `- ${line}`).join('\n')}`;
}

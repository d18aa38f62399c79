import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { ChatCompletionAssistantMessageParam, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { accessFromIds, errorMessage } from '../core/index.js';
import { createSpace, TASK_STORAGE_MODULE, type Space } from '../space/index.js';
import { describeBreach, emptyUsage, resolveBudget, type BudgetLimit } from './budget.js';
import { buildContext, type Turn } from './build-context.js';
import { createRedactor, type Redactor } from '../core/index.js';
import { createModelClient, createReplayModelClient, type ModelClient, type ModelReply } from './model-client.js';
import { parseArguments } from './parse-arguments.js';
import { performToolCall } from './perform-tool-call.js';
import type { EmitPlannerEvent, PlannerEvent } from './planner-event.js';
import { findPrice, priceUsage, readUsage } from './prices.js';
import { buildSystemPrompt, buildTaskMessage } from './prompt.js';
import { resolveModelSettings, resolvePrices } from './resolve-model-settings.js';
import { currentUsage, log, type TaskRun } from './task-run.js';
import type { ExecuteTaskOptions, TaskResult } from './task-types.js';
import { createTraceWriter } from './trace-file.js';
import type { TraceSpan, Tracer } from '../bridge/index.js';

const DEFAULT_CONTEXT_LIMIT_CHARS = 60_000;
const DEFAULT_SUMMARIZE_ABOVE_CHARS = 4_000;
const NO_CALL_NUDGE = 'Your reply called no function. Every reply must call search_tools, call_tool, run_code or finish; if the task is done, call finish with your summary.';

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
  const space = options.space ?? (await createSpace({
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
    const redactor = createRedactor({ secrets: [...(apiKey ? [{ value: apiKey, label: 'model API key', strength: 'strong' as const }] : []), ...space.secrets] });
    return await loop(task, taskId, space, client, redactor, options, limits);
  } finally {
    if (!options.space) await space.close();
  }
}

async function loop(task: string, taskId: string, space: Space, client: ModelClient, redactor: Redactor, options: ExecuteTaskOptions, limits: ReturnType<typeof resolveBudget>): Promise<TaskResult> {
  const runDir = path.resolve(options.runDir ?? path.join(space.config.outDir, 'runs', taskId));
  const traceFile = options.trace === false ? undefined : path.resolve(options.trace ?? path.join(runDir, 'trace.jsonl'));
  const writeTrace = traceFile ? createTraceWriter(traceFile) : undefined;
  const fullCatalog = await space.catalog();
  const allow = options.tools?.allow;
  // The task's own stored results stay readable whatever the caller allows: they came from allowed calls.
  const functions = allow ? fullCatalog.functions.filter((entry) => entry.module === TASK_STORAGE_MODULE || allow(entry)) : fullCatalog.functions;
  const catalog = {
    ...fullCatalog,
    functions,
    modules: fullCatalog.modules
      .map((module) => ({ ...module, functions: functions.filter((entry) => entry.module === module.module).length }))
      .filter((module) => module.functions > 0),
  };
  const run: TaskRun = {
    taskId,
    space,
    catalog,
    access: allow ? accessFromIds(functions.map((entry) => entry.id), 'this task') : undefined,
    usage: emptyUsage(limits),
    step: 0,
    redactor,
    emit: () => undefined,
    logs: [],
    rawOutputs: [],
    runDir,
    stored: new Map(),
    summarizeAboveChars: options.summarizeAboveChars ?? DEFAULT_SUMMARIZE_ABOVE_CHARS,
    signal: options.signal,
  };
  const emit: EmitPlannerEvent = (partial) => {
    const event = redactor({ ...partial, taskId, step: run.step, timestamp: new Date().toISOString() } as PlannerEvent);
    writeTrace?.(event);
    try {
      options.onEvent?.(event);
    } catch {
      // A listener's fault must not end the task.
    }
  };
  run.emit = emit;
  // Spans (when the space traces): the task, each step with its model request, and the step's code runs and calls.
  const tracer = await space.tracer();
  const taskSpan = tracer.startSpan('invoke_agent agent-spaces', {
    ...(options.traceparent === undefined ? {} : { parent: options.traceparent }),
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'agent-spaces', 'gen_ai.request.model': client.model, 'agent_spaces.task_id': taskId },
  });
  let stepSpan: TraceSpan | undefined;
  const safeTask = redactor.text(task);
  emit({ type: 'task-start', task: safeTask, model: client.model, baseURL: client.baseURL, budget: limits });

  const prices = resolvePrices(options.model, space.config.model);
  const price = findPrice(client.model, prices);
  let priceNote = price ? undefined : `no price known for model "${client.model}": its cost is counted as $0; add it to model.prices (USD per million tokens) to enforce maxLlmCostUsd`;
  if (priceNote) run.logs.push(priceNote);

  const head: ChatCompletionMessageParam[] = [
    { role: 'system', content: redactor.text(buildSystemPrompt(options.systemPrompt)) },
    { role: 'user', content: redactor.text(buildTaskMessage(task, options.context)) },
  ];
  const turns: Turn[] = [];
  const contextLimit = options.contextLimitChars ?? DEFAULT_CONTEXT_LIMIT_CHARS;

  const end = (success: boolean, summary: string, error: string | null, result?: unknown): TaskResult => {
    const finalSummary = redactor.text(summary);
    stepSpan?.end();
    taskSpan.setAttributes({ 'agent_spaces.steps': run.usage.steps, 'gen_ai.usage.input_tokens': run.usage.tokens.input, 'gen_ai.usage.output_tokens': run.usage.tokens.output });
    taskSpan.end(success ? undefined : { code: 'TASK_FAILED', message: 'the task did not finish' });
    emit({ type: 'task-finish', success, summary: finalSummary, error, usage: currentUsage(run.usage) });
    return {
      taskId,
      success,
      finalSummary,
      ...(result !== undefined ? { result: redactor(result) } : {}),
      rawOutputs: run.rawOutputs,
      budgetUsage: currentUsage(run.usage),
      logs: run.logs,
      error: error === null ? null : redactor.text(error),
      runDir,
    };
  };
  const fail = (error: string): TaskResult => end(false, partialSummary(run.logs, error), error);
  const breach = (limit: BudgetLimit): TaskResult => {
    const message = describeBreach(limit, run.usage);
    emit({ type: 'budget-exceeded', limit, message, usage: currentUsage(run.usage) });
    run.logs.push(message);
    return fail(message);
  };

  for (;;) {
    if (options.signal?.aborted) return fail(`cancelled: ${errorMessage(options.signal.reason ?? 'the signal was aborted')}`);
    if (run.usage.steps >= limits.maxSteps) return breach('maxSteps');
    if (run.usage.llmCostUsd > limits.maxLlmCostUsd) return breach('maxLlmCostUsd');
    run.step = ++run.usage.steps;
    stepSpan?.end();
    stepSpan = tracer.startSpan(`agent_spaces.step ${run.step}`, { ...(taskSpan.traceparent === undefined ? {} : { parent: taskSpan.traceparent }), attributes: { 'agent_spaces.step': run.step } });
    run.traceparent = stepSpan.traceparent;
    const context = buildContext(head, turns, contextLimit);
    let reply: ModelReply;
    try {
      reply = await traceChat(tracer, client.model, stepSpan.traceparent, () => client.complete(context.messages, options.signal));
    } catch (error) {
      if (options.signal?.aborted) return fail(`cancelled: ${errorMessage(options.signal.reason ?? 'the signal was aborted')}`);
      run.logs.push(redactor.text(`step ${run.step}: ${errorMessage(error)}`));
      return fail(errorMessage(error));
    }
    const tokens = readUsage(reply.usage);
    const costUsd = price ? priceUsage(tokens, price) : 0;
    run.usage.tokens.input += tokens.input;
    run.usage.tokens.cachedInput += tokens.cachedInput;
    run.usage.tokens.output += tokens.output;
    run.usage.llmCostUsd += costUsd;
    emit({ type: 'model-reply', reply, costUsd, usage: currentUsage(run.usage), ...(priceNote ? { note: priceNote } : {}) });
    priceNote = undefined;
    if (run.usage.llmCostUsd > limits.maxLlmCostUsd) return breach('maxLlmCostUsd');

    const calls = reply.message.tool_calls ?? [];
    const assistant: ChatCompletionAssistantMessageParam = {
      role: 'assistant',
      content: reply.message.content === null ? null : redactor.text(reply.message.content),
      ...(calls.length > 0 ? { tool_calls: redactor(calls) } : {}),
    };
    if (calls.length === 0) {
      log(run, 'the reply called no function (asked the model to call one)');
      turns.push({ messages: [{ ...assistant, content: assistant.content || '(no text)' }, { role: 'user', content: NO_CALL_NUDGE }], digest: `step ${run.step}: replied without calling a function` });
      continue;
    }
    const answers: ChatCompletionMessageParam[] = [];
    const digests: string[] = [];
    for (const call of calls) {
      const parsed = call.type === 'function' ? parseArguments(call.function.name, call.function.arguments) : { tool: 'invalid' as const, error: 'only function calls are understood' };
      let outcome;
      try {
        outcome = await performToolCall(run, parsed, call.type === 'function' ? call.function.name : call.type);
      } catch (error) {
        // A fault of the host (a sandbox that cannot start, a closed space), not of the model's reply.
        if (options.signal?.aborted) return fail(`cancelled: ${errorMessage(options.signal.reason ?? 'the signal was aborted')}`);
        const message = `${parsed.tool} failed on the host: ${errorMessage(error)}`;
        run.logs.push(redactor.text(`step ${run.step}: ${message}`));
        return fail(message);
      }
      if (outcome.finish) {
        log(run, 'finish');
        return end(true, outcome.finish.summary, null, outcome.finish.result);
      }
      if (outcome.breach) return breach(outcome.breach);
      answers.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
      digests.push(outcome.digest);
    }
    turns.push({ messages: [assistant, ...answers], digest: digests.join('; ') });
  }
}

/** One model request as a GenAI `chat` span: the model and the tokens, never the messages. */
async function traceChat(tracer: Tracer, model: string, parent: string | undefined, complete: () => Promise<ModelReply>): Promise<ModelReply> {
  const span = tracer.startSpan(`chat ${model}`, { ...(parent === undefined ? {} : { parent }), kind: 'client', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model } });
  try {
    const reply = await complete();
    const tokens = readUsage(reply.usage);
    span.setAttributes({ 'gen_ai.usage.input_tokens': tokens.input, 'gen_ai.usage.output_tokens': tokens.output, 'agent_spaces.tool_calls': reply.message.tool_calls?.length ?? 0 });
    span.end();
    return reply;
  } catch (error) {
    span.end({ code: 'MODEL_ERROR', message: 'the model request failed' });
    throw error;
  }
}

/** What was done before the task stopped, from the logs: no model call is spent on it. */
function partialSummary(logs: string[], error: string): string {
  const done = logs.filter((line) => line.startsWith('step '));
  if (done.length === 0) return `The task stopped before anything was done: ${error}.`;
  const shown = done.length > 20 ? [`… ${done.length - 20} earlier actions`, ...done.slice(-20)] : done;
  return `The task stopped before it was finished: ${error}. Done so far:\n${shown.map((line) => `- ${line}`).join('\n')}`;
}



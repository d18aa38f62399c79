import { executeTask, PLANNER_TOOLS, type ModelClient, type PlannerEvent } from '../../planner/index.js';
import { countReplyTokens, countRequestTokens } from '../count-tokens.js';
import type { ArmInput, ArmOutcome } from './arm-types.js';

/**
 * The planner as it ships: `executeTask` with the suite's policy as its additional instructions, the
 * task's text as the task, the suite's module as the only functions it may find and call, and the
 * eval's budget. Replies without `usage` get their tokens counted by the eval's tokenizer.
 */
export async function runPlannerArm(input: ArmInput): Promise<ArmOutcome> {
  const events: PlannerEvent[] = [];
  let counted = false;
  let searches = 0;
  const countingClient = (client: ModelClient): ModelClient => ({
    model: client.model,
    baseURL: client.baseURL,
    check: (signal) => client.check(signal),
    async complete(messages, signal) {
      const reply = await client.complete(messages, signal);
      if (reply.usage) return reply;
      counted = true;
      const prompt = countRequestTokens(input.counter, messages as never, PLANNER_TOOLS);
      const completion = countReplyTokens(
        input.counter,
        reply.message.content,
        (reply.message.tool_calls ?? []).filter((call) => call.type === 'function'),
      );
      return { ...reply, usage: { prompt_tokens: prompt, completion_tokens: completion } };
    },
  });
  const result = await executeTask(input.task.instruction, {
    space: input.space,
    model: { model: input.model.model, baseURL: input.model.baseURL, ...(input.model.apiKey ? { apiKey: input.model.apiKey } : {}) },
    budget: input.budget,
    systemPrompt: input.suite.policy,
    tools: { allow: (entry) => entry.module === input.suite.module },
    runDir: input.runDir,
    taskId: `eval-${input.task.id}`,
    wrapModelClient: countingClient,
    onEvent: (event) => {
      events.push(event);
      if (event.type === 'search-run') searches++;
    },
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const usage = result.budgetUsage;
  return {
    answer: result.success ? result.finalSummary : '',
    turns: usage.steps,
    promptTokens: usage.tokens.input + usage.tokens.cachedInput,
    completionTokens: usage.tokens.output,
    tokensCounted: counted,
    toolCalls: usage.toolCalls,
    codeRuns: usage.codeRuns,
    searches,
    ...(result.success ? {} : { error: result.error ?? 'the planner stopped without finishing' }),
    transcript: events,
  };
}

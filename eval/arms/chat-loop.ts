import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import type { Budget } from '../../planner/index.js';
import { errorMessage } from '../../core/index.js';
import { countReplyTokens, countRequestTokens, type TokenCounter } from '../count-tokens.js';
import type { ArmModel, ArmOutcome } from './arm-types.js';

/** What performing one tool call of the model gave. */
export interface PerformedCall {
  content: string;
  /** Capability calls it made (a code run counts the calls inside it). */
  toolCalls: number;
  codeRun?: boolean;
  /** A search or declaration look-up (search_tools, get_types). */
  search?: boolean;
}

export interface ChatLoopOptions {
  model: ArmModel;
  system: string;
  user: string;
  tools: ChatCompletionFunctionTool[];
  budget: Budget;
  counter: TokenCounter;
  perform(name: string, args: unknown): Promise<PerformedCall>;
  signal?: AbortSignal;
}

/**
 * A plain OpenAI chat loop, as a client of a tool-calling model runs one: send the conversation with the
 * tools, perform every tool call of the reply, repeat until a reply calls none (its text is the answer)
 * or the budget is spent (the same limits as the planner's: model turns, capability calls, code runs).
 */
export async function runChatLoop(options: ChatLoopOptions): Promise<ArmOutcome> {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({ baseURL: options.model.baseURL, apiKey: options.model.apiKey ?? 'no-key', maxRetries: 2, timeout: 300_000 });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: options.system },
    { role: 'user', content: options.user },
  ];
  const outcome: ArmOutcome = {
    answer: '',
    turns: 0,
    promptTokens: 0,
    completionTokens: 0,
    tokensCounted: false,
    toolCalls: 0,
    codeRuns: 0,
    searches: 0,
    transcript: messages,
  };
  const { budget } = options;
  for (;;) {
    if (outcome.turns >= budget.maxSteps)
      return { ...outcome, error: `budget exceeded: maxSteps (${budget.maxSteps} model turns without an answer)` };
    outcome.turns++;
    let completion;
    try {
      completion = await client.chat.completions.create(
        { model: options.model.model, messages, tools: options.tools, tool_choice: 'auto' },
        options.signal ? { signal: options.signal } : {},
      );
    } catch (error) {
      return { ...outcome, error: `model request failed: ${errorMessage(error)}` };
    }
    const message = completion.choices[0]?.message;
    const calls = (message?.tool_calls ?? []).filter(
      (call): call is Extract<ChatCompletionMessageToolCall, { type: 'function' }> => call.type === 'function',
    );
    if (completion.usage) {
      outcome.promptTokens += completion.usage.prompt_tokens;
      outcome.completionTokens += completion.usage.completion_tokens;
    } else {
      outcome.tokensCounted = true;
      outcome.promptTokens += countRequestTokens(options.counter, messages as never, options.tools);
      outcome.completionTokens += countReplyTokens(options.counter, message?.content ?? null, calls);
    }
    messages.push({ role: 'assistant', content: message?.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    if (calls.length === 0) return { ...outcome, answer: message?.content ?? '' };
    if (message?.content) outcome.answer = message.content;
    for (const call of calls) {
      let args: unknown;
      let performed: PerformedCall;
      try {
        args = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
        performed = await options.perform(call.function.name, args);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        performed = { content: `Error: ${errorMessage(error)}`, toolCalls: 0 };
      }
      outcome.toolCalls += performed.toolCalls;
      if (performed.codeRun) outcome.codeRuns++;
      if (performed.search) outcome.searches++;
      messages.push({ role: 'tool', tool_call_id: call.id, content: performed.content });
    }
    if (outcome.toolCalls > budget.maxToolCalls)
      return { ...outcome, error: `budget exceeded: maxToolCalls (${outcome.toolCalls} of ${budget.maxToolCalls} capability calls)` };
    if (outcome.codeRuns > budget.maxCodeRuns)
      return { ...outcome, error: `budget exceeded: maxCodeRuns (${outcome.codeRuns} of ${budget.maxCodeRuns} code runs)` };
  }
}

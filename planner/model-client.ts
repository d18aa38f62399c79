import type * as OpenAISdk from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import { errorMessage } from '../core/index.js';
import { ModelError } from './model-error.js';
import { PLANNER_TOOLS } from './planner-tools.js';
import type { ResolvedModelSettings } from './resolve-model-settings.js';

/** What the planner keeps of one model reply (and what a trace records). */
export interface ModelReply {
  message: { content: string | null; tool_calls?: ChatCompletionMessageToolCall[] };
  /** The API's `usage` object as it came. */
  usage: unknown;
}

/** Where model replies come from: a live endpoint or a recorded trace. */
export interface ModelClient {
  readonly model: string;
  readonly baseURL: string;
  /** Checks, cheaply, that the endpoint answers and accepts the key; throws a `ModelError` if not. */
  check(signal?: AbortSignal): Promise<void>;
  complete(messages: ChatCompletionMessageParam[], signal?: AbortSignal): Promise<ModelReply>;
}

const CHECK_TIMEOUT_MS = 5_000;

/** A client for an OpenAI-compatible chat-completions endpoint, offering the four planner tools. */
export function createModelClient(settings: ResolvedModelSettings, options: { timeoutMs?: number; maxRetries?: number } = {}): ModelClient {
  // The SDK (~500 modules) loads with the first request, not with the package.
  let loading: Promise<{ sdk: typeof OpenAISdk; client: OpenAISdk.OpenAI }> | undefined;
  const load = () =>
    (loading ??= import('openai').then((sdk) => ({
      sdk,
      client: new sdk.OpenAI({
        baseURL: settings.baseURL,
        // The SDK insists on a key; local servers ignore whatever is sent.
        apiKey: settings.apiKey ?? 'no-key',
        timeout: options.timeoutMs ?? 120_000,
        maxRetries: options.maxRetries ?? 2,
      }),
    })));
  const where = `model endpoint ${settings.baseURL}`;
  return {
    model: settings.model,
    baseURL: settings.baseURL,
    async check(signal) {
      const { sdk, client } = await load();
      const { APIConnectionError, APIError, APIUserAbortError } = sdk;
      try {
        await client.models.list({ timeout: CHECK_TIMEOUT_MS, maxRetries: 0, ...(signal ? { signal } : {}) });
      } catch (error) {
        if (error instanceof APIUserAbortError) throw error;
        if (error instanceof APIConnectionError) {
          throw new ModelError(
            'MODEL_UNREACHABLE',
            `the ${where} is unreachable (${errorMessage(error)}): start the server or set AGENT_SPACES_BASE_URL (or model.baseURL in the config; 'agent-spaces task' also takes --base-url) to one that runs`,
            { cause: error },
          );
        }
        if (error instanceof APIError && (error.status === 401 || error.status === 403)) {
          throw new ModelError(
            'MODEL_AUTH_FAILED',
            `the ${where} refused the API key (HTTP ${error.status}): check OPENAI_API_KEY (or model.apiKey in the config)`,
            { cause: error },
          );
        }
        // Any other answer (404 on servers without /models, …) shows the endpoint is there.
      }
    },
    async complete(messages, signal) {
      const { sdk, client } = await load();
      const { APIError, APIUserAbortError } = sdk;
      try {
        const completion = await client.chat.completions.create(
          { model: settings.model, messages, tools: [...PLANNER_TOOLS], tool_choice: 'auto' },
          signal ? { signal } : {},
        );
        const choice = completion.choices[0];
        return {
          message: {
            content: choice?.message.content ?? null,
            ...(choice?.message.tool_calls?.length ? { tool_calls: choice.message.tool_calls } : {}),
          },
          usage: completion.usage ?? null,
        };
      } catch (error) {
        if (error instanceof APIUserAbortError) throw error;
        const status = error instanceof APIError && error.status !== undefined ? ` (HTTP ${error.status})` : '';
        throw new ModelError(
          'MODEL_REQUEST_FAILED',
          `the ${where} failed a chat-completions request for model "${settings.model}"${status}: ${errorMessage(error)}`,
          { cause: error },
        );
      }
    },
  };
}

/** Replays recorded replies in order, whatever is asked: a recorded run against today's tools. */
export function createReplayModelClient(replies: readonly ModelReply[], model = 'replay'): ModelClient {
  let next = 0;
  return {
    model,
    baseURL: 'replay',
    async check() {},
    async complete() {
      const reply = replies[next++];
      if (!reply)
        throw new ModelError(
          'MODEL_REPLAY_EXHAUSTED',
          `the trace has no model reply number ${next} (it recorded ${replies.length}): the replayed run took a different path than the recorded one`,
        );
      return reply;
    },
  };
}

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countReplyTokens, countRequestTokens, loadTokenCounter, type TokenCounter } from '../count-tokens.js';
import type { EvalTask } from '../suite.js';
import type { PlannedCall } from './plan-calls.js';
import { scriptFor, type Arm, type OracleFunction, type OracleTurn } from './oracle-script.js';

/** The model id the oracle answers as. */
export const ORACLE_MODEL = 'oracle';
const MAX_BODY_BYTES = 32 * 1024 * 1024;

interface ChatBody {
  model?: string;
  messages?: { role: string; content?: unknown; tool_calls?: unknown }[];
  tools?: { type: string; function: { name: string } }[];
}

export interface OracleServer {
  /** `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  model: string;
  /** Starts a task in an arm: the next requests get that task's replies, from the first. */
  begin(arm: Arm, task: EvalTask, planned: readonly PlannedCall[], functions: readonly OracleFunction[]): void;
  /** Searches of the current task whose result did not show every function the oracle needed. */
  searchMisses(): string[];
  close(): Promise<void>;
}

interface Conversation {
  arm: Arm;
  task: EvalTask;
  turns: OracleTurn[];
  next: number;
  module: string;
  misses: string[];
}

/**
 * The oracle model: an OpenAI-compatible chat-completions server on 127.0.0.1 that replies to each
 * request with the next step of the current task's ground truth, as the arm the request comes from
 * allows (told apart by the tools offered: `execute_code` → code, `run_code` → planner, else direct).
 * It reports `usage` counted with the eval's tokenizer over what it was sent, so every arm's tokens
 * are measured the same way. A request for another arm than the one begun, or whose messages do not
 * hold the task's text, is answered with HTTP 400 (the harness would be measuring the wrong thing).
 */
export async function startOracleServer(): Promise<OracleServer> {
  const counter: TokenCounter = await loadTokenCounter();
  let conversation: Conversation | undefined;
  let replies = 0;

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => send(response, 500, { error: { message: String(error) } }));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'GET' && url.pathname === '/v1/models') {
      return send(response, 200, {
        object: 'list',
        data: [{ id: ORACLE_MODEL, object: 'model', created: 0, owned_by: 'agent-spaces-eval' }],
      });
    }
    if (request.method !== 'POST' || url.pathname !== '/v1/chat/completions')
      return send(response, 404, { error: { message: `no route ${request.method ?? ''} ${url.pathname}` } });
    let body: ChatBody;
    try {
      body = JSON.parse(await readBody(request)) as ChatBody;
    } catch (error) {
      return send(response, 400, { error: { message: `the request body is not JSON: ${String(error)}` } });
    }
    const refuse = (message: string) => send(response, 400, { error: { message: `oracle: ${message}` } });
    if (!conversation) return refuse('no task has begun');
    const messages = body.messages ?? [];
    const names = new Set((body.tools ?? []).map((tool) => tool.function.name));
    const arm: Arm = names.has('execute_code') ? 'code' : names.has('run_code') ? 'planner' : 'direct';
    if (arm !== conversation.arm)
      return refuse(`the request offers the tools of the ${arm} arm, but the task began in the ${conversation.arm} arm`);
    if (
      !messages.some(
        (message) =>
          message.role === 'user' && typeof message.content === 'string' && message.content.includes(conversation?.task.instruction ?? ''),
      )
    ) {
      return refuse(`no user message holds the text of task ${conversation.task.id}`);
    }
    const turn = nextTurn(conversation, messages);
    replies++;
    const toolCalls = (turn.toolCalls ?? []).map((call, position) => ({
      id: `call_${replies}_${position + 1}`,
      type: 'function' as const,
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    const prompt = countRequestTokens(counter, messages, body.tools ?? []);
    const completion = countReplyTokens(counter, turn.content ?? null, toolCalls);
    return send(response, 200, {
      id: `chatcmpl-oracle-${replies}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: ORACLE_MODEL,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: turn.content ?? null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            refusal: null,
          },
          finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: { cached_tokens: 0 },
      },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    model: ORACLE_MODEL,
    begin(arm, task, planned, functions) {
      conversation = {
        arm,
        task,
        turns: scriptFor(arm, task, planned, functions),
        next: 0,
        module: functions[0]?.module ?? '',
        misses: [],
      };
    },
    searchMisses: () => [...(conversation?.misses ?? [])],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The next reply. After the search, the oracle reads its result as a model would: when it does not show
 * every function needed, one more round trip gets the declarations (code: `get_types` of the module;
 * planner: a second search for the missing ones) — counted in `searchMisses`.
 */
function nextTurn(conversation: Conversation, messages: NonNullable<ChatBody['messages']>): OracleTurn {
  const previous = conversation.turns[conversation.next - 1];
  if (previous?.expectIds) {
    const last = messages.at(-1);
    const shown = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    const missing = previous.expectIds.filter((id) => !shown.includes(`"${id}"`));
    previous.expectIds = undefined;
    if (missing.length > 0) {
      conversation.misses.push(...missing);
      const fallback: OracleTurn =
        conversation.arm === 'code'
          ? { toolCalls: [{ name: 'get_types', arguments: { modules: [conversation.module] } }] }
          : {
              toolCalls: [
                {
                  name: 'search_tools',
                  arguments: {
                    query: missing.map((id) => id.slice(id.indexOf('.') + 1)).join(' '),
                    detail_level: 'full',
                    limit: missing.length,
                  },
                },
              ],
            };
      conversation.turns.splice(conversation.next, 0, fallback);
    }
  }
  const turn = conversation.turns[Math.min(conversation.next, conversation.turns.length - 1)] as OracleTurn;
  conversation.next++;
  return turn;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

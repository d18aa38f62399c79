/**
 * A real OpenAI-compatible chat-completions server for tests: node:http on 127.0.0.1 (port 0), replies
 * taken from a script, every request recorded, so a test drives the real `openai` client end to end and
 * can assert on what the model was sent. Non-streaming only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Reported as `prompt_tokens_details.cached_tokens`. */
  cached_tokens?: number;
}

export interface ScriptedToolCall {
  name: string;
  /** An object is JSON-encoded; a string is sent as is (to script malformed JSON). */
  arguments: unknown;
  id?: string;
}

/** One scripted reply: an assistant message, or a raw HTTP answer (errors, malformed bodies). */
export type ScriptedReply =
  | { content?: string | null; toolCalls?: ScriptedToolCall[]; usage?: ScriptedUsage; finishReason?: string }
  | { status: number; body: unknown };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (`undefined` for GET). */
  body: ChatRequestBody | undefined;
}

/** The parts of a chat-completions request the tests look at. */
export interface ChatRequestBody {
  model: string;
  messages: {
    role: string;
    content?: unknown;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  [key: string]: unknown;
}

export type Script = ScriptedReply[] | ((request: ChatRequestBody, index: number) => ScriptedReply);

export interface ScriptedModelServerOptions {
  /** Required `Authorization: Bearer <key>`; other keys get 401. Omitted: any key (or none) is accepted. */
  apiKey?: string;
  /** Model ids listed by `GET /v1/models` (default `["scripted-model"]`). */
  models?: string[];
  /** Usage reported when a reply gives none. */
  defaultUsage?: ScriptedUsage;
}

export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>/v1`, what `new OpenAI({ baseURL })` takes. */
  baseURL: string;
  /** Every request, in order, including `GET /v1/models`. */
  requests: RecordedRequest[];
  /** Only the chat-completions requests' bodies. */
  chatRequests(): ChatRequestBody[];
  close(): Promise<void>;
}

export const DEFAULT_SCRIPTED_USAGE: ScriptedUsage = { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 0 };

/** Starts the server; `close()` it in `afterAll`/`finally`. */
export async function startScriptedModelServer(script: Script, options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
  const requests: RecordedRequest[] = [];
  let chatIndex = 0;
  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => send(response, 500, { error: { message: String(error) } }));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const url = new URL(request.url ?? '/', 'http://localhost');
    let body: ChatRequestBody | undefined;
    if (text.length > 0) {
      try {
        body = JSON.parse(text) as ChatRequestBody;
      } catch {
        return send(response, 400, { error: { message: 'request body is not JSON' } });
      }
    }
    requests.push({ method: request.method ?? 'GET', path: url.pathname, headers: request.headers, body });
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return send(response, 401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    }
    if (request.method === 'GET' && url.pathname === '/v1/models') {
      return send(response, 200, {
        object: 'list',
        data: (options.models ?? ['scripted-model']).map((id) => ({ id, object: 'model', created: 0, owned_by: 'test' })),
      });
    }
    if (request.method !== 'POST' || url.pathname !== '/v1/chat/completions' || !body) {
      return send(response, 404, { error: { message: `no route ${request.method ?? ''} ${url.pathname}` } });
    }
    const index = chatIndex++;
    const reply = Array.isArray(script) ? script[index] : script(body, index);
    // 400, not 5xx: the client must not retry a test that simply ran out of script.
    if (!reply) return send(response, 400, { error: { message: `the script has no reply number ${index + 1}` } });
    if ('status' in reply) return send(response, reply.status, reply.body);
    return send(response, 200, completion(body.model, index, reply, options.defaultUsage ?? DEFAULT_SCRIPTED_USAGE));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions' && r.body).map((r) => r.body as ChatRequestBody),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Shorthand for a reply that calls one tool. */
export function callReply(name: string, args: unknown, usage?: ScriptedUsage): ScriptedReply {
  return { toolCalls: [{ name, arguments: args }], ...(usage ? { usage } : {}) };
}

function completion(model: string, index: number, reply: Exclude<ScriptedReply, { status: number }>, fallback: ScriptedUsage) {
  const usage = reply.usage ?? fallback;
  const toolCalls = (reply.toolCalls ?? []).map((call, position) => ({
    id: call.id ?? `call_${index + 1}_${position + 1}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  return {
    id: `chatcmpl-${index + 1}`,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          refusal: null,
        },
        finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

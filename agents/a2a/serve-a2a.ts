import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DefaultRequestHandler, JsonRpcTransportHandler, TaskStore } from '@a2a-js/sdk/server';
import { toModuleName } from '../../compiler/index.js';
import { errorMessage, type SecretInput } from '../../core/index.js';
import { checkHostAndOrigin, DEFAULT_HTTP_LIMITS, hasBearerToken, readJsonBody, resolveHttpBind } from '../../server/index.js';
import { agentSecrets } from '../agent-secrets.js';
import type { AgentRunner } from '../run-agent.js';
import { buildAgentCard } from './agent-card.js';
import { createAgentExecutor, type A2ATraceRecorder } from './agent-executor.js';

export interface A2AServeOptions {
  port: number;
  /** Default 127.0.0.1. Any address that is not loopback needs a `token`. */
  host?: string;
  /** Bearer token every JSON-RPC request must carry (agent cards stay readable without it). */
  token?: string;
  log?: (line: string) => void;
  /**
   * Where each agent's tasks are kept (default: in this process's memory). With a store, the CLI passes
   * durable's `openA2ATaskStores`, so another replica or a restarted server answers `tasks/get`.
   */
  taskStores?: A2ATaskStores;
}

/** Task stores per served agent; `secrets` are the agent's own, for the store to cut out before writing. */
export interface A2ATaskStores {
  forAgent(agent: string, secrets: readonly SecretInput[]): TaskStore;
  /** Where each task's session events (its planner trace) go too, keyed by the A2A task id. */
  traceRecorder?(agent: string, secrets: readonly SecretInput[]): A2ATraceRecorder;
}

export interface RunningA2AServer {
  /** `http://host:port` */
  origin: string;
  /** Each agent's base URL (`<origin>/agents/<name>/`; its card is `<url>.well-known/agent-card.json`). */
  agents: { name: string; url: string }[];
  close(): Promise<void>;
}

interface Mounted {
  handler: DefaultRequestHandler;
  transport: JsonRpcTransportHandler;
}

/**
 * Serves agents over A2A v1.0 (JSON-RPC binding): each at `/agents/<kebab-name>/`, with its card at
 * `/agents/<name>/.well-known/agent-card.json`. With one agent, its card is also at the root
 * `/.well-known/agent-card.json`. Blocking and streaming sends, task lookup and cancellation are the
 * SDK's `DefaultRequestHandler` over an in-memory task store, or the store `taskStores` gives. A message
 * in an existing context continues it: the session gets that context's earlier turns.
 */
export async function serveA2A(runners: AgentRunner[], options: A2AServeOptions): Promise<RunningA2AServer> {
  // The A2A SDK loads when a server starts, not with the package.
  const sdk = await loadSdk();
  const { AGENT_CARD_PATH, DefaultRequestHandler, InMemoryTaskStore, JsonRpcTransportHandler } = sdk;
  const host = options.host ?? '127.0.0.1';
  // The same front as serve --http: loopback only without a token, the bound address the checked one.
  const bind = await resolveHttpBind({ host, ...(options.token ? { token: options.token } : {}) });
  const log = options.log ?? (() => undefined);
  const mounted = new Map<string, Mounted>();
  const limits = DEFAULT_HTTP_LIMITS;
  const httpServer = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.requestTimeoutMs, 10_000),
      maxHeaderSize: limits.maxHeaderBytes,
    },
    (request, response) => {
      handle(request, response).catch((error: unknown) => {
        log(`A2A request failed: ${errorMessage(error)}`);
        if (!response.headersSent) json(response, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'internal error' } });
        else if (!response.writableEnded) response.end();
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port, bind.address, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const agents: { name: string; url: string }[] = [];
  for (const runner of runners) {
    let slug = toModuleName(runner.agent.name) || 'agent';
    for (let n = 2; mounted.has(slug); n++) slug = `${toModuleName(runner.agent.name)}-${n}`;
    const url = `${origin}/agents/${slug}/`;
    const secrets = agentSecrets(runner.agent);
    const taskStore = options.taskStores?.forAgent(slug, secrets) ?? new InMemoryTaskStore();
    const recordTrace = options.taskStores?.traceRecorder?.(slug, secrets);
    const handler = new DefaultRequestHandler(
      await buildAgentCard(runner.agent, url),
      taskStore,
      await createAgentExecutor(runner, { taskStore, ...(recordTrace ? { recordTrace } : {}) }),
    );
    mounted.set(slug, { handler, transport: new JsonRpcTransportHandler(handler) });
    agents.push({ name: runner.agent.name, url });
    log(`A2A: agent "${runner.agent.name}" at ${url} (card ${url}${AGENT_CARD_PATH})`);
  }
  const only = mounted.size === 1 ? [...mounted.values()][0] : undefined;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // DNS rebinding and web pages (Host, Origin) are refused for cards and calls alike.
    const refusal = checkHostAndOrigin(request, bind.loopback);
    if (refusal)
      return json(response, refusal.status, { jsonrpc: '2.0', id: null, error: { code: refusal.code, message: refusal.message } });
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    const match = /^\/agents\/([^/]+)\/?(.*)$/.exec(pathname);
    const target = match ? mounted.get(match[1] ?? '') : only;
    const rest = match ? (match[2] ?? '') : pathname.replace(/^\//, '');
    if (!target) return json(response, 404, { error: `no agent here; agents: ${agents.map((a) => a.url).join(', ')}` });
    if (request.method === 'GET' && rest === AGENT_CARD_PATH) return json(response, 200, await target.handler.getAgentCard());
    if (request.method !== 'POST' || rest !== '')
      return json(response, 404, { error: `not found: POST JSON-RPC to the agent's URL, GET its card at ${AGENT_CARD_PATH}` });
    if (options.token && !hasBearerToken(request, options.token)) {
      return json(response, 401, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32001, message: 'unauthorized: send Authorization: Bearer <token>' },
      });
    }
    await handleJsonRpc(sdk, target, request, response);
  }

  return {
    origin,
    agents,
    async close() {
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

type A2ASdk = Awaited<ReturnType<typeof loadSdk>>;

async function loadSdk() {
  const [sdk, server] = await Promise.all([import('@a2a-js/sdk'), import('@a2a-js/sdk/server')]);
  return { ...sdk, ...server };
}

async function handleJsonRpc(sdk: A2ASdk, target: Mounted, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const {
    A2A_VERSION_HEADER,
    JsonRpcTransportHandler,
    SSE_HEADERS,
    UnauthenticatedUser,
    defaultServerCallContextBuilder,
    formatSSEErrorEvent,
    formatSSEEvent,
    validateVersion,
  } = sdk;
  const body = await readJsonBody(request);
  if ('refusal' in body) {
    // The rest of the body is not read: the connection closes after the answer.
    response.setHeader('connection', 'close');
    return json(response, body.refusal.status, {
      jsonrpc: '2.0',
      id: null,
      error: { code: body.refusal.code, message: body.refusal.message },
    });
  }
  if (typeof body.value !== 'object' || body.value === null) {
    return json(response, 200, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error: the body is not a JSON-RPC request' },
    });
  }
  const parsed = body.value as Record<string, unknown>;
  const id = parsed.id ?? null;
  const header = request.headers[A2A_VERSION_HEADER.toLowerCase()];
  const requestedVersion = typeof header === 'string' ? header : undefined;
  try {
    const context = defaultServerCallContextBuilder({
      extensions: undefined,
      user: new UnauthenticatedUser(),
      headers: request.headers,
      ...(requestedVersion ? { requestedVersion } : {}),
    });
    validateVersion(context.requestedVersion, await target.handler.getAgentCard(), 'JSONRPC');
    const result = await target.transport.handle(parsed, context);
    if (!isAsyncIterable(result)) return json(response, 200, result);
    response.writeHead(200, SSE_HEADERS);
    try {
      for await (const event of result) response.write(formatSSEEvent(event));
    } catch (error) {
      response.write(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) }));
    }
    response.end();
  } catch (error) {
    if (response.headersSent) return void response.end();
    json(response, 200, { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

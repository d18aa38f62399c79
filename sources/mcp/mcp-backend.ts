import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { AgentSpacesError, ToolCallError, createRedactor, errorMessage, untilAborted } from '../../core/index.js';
import type { Backend, BackendCall, CapabilitySpec, Redactor } from '../../core/index.js';
import { McpConnectError, connectMcpServer } from './connect.js';
import type { McpServerConfig } from '../../config/index.js';
import { secretsOfMcpServer } from './server-secrets.js';
import { mapToolResult } from './map-tool-result.js';
import { ServerSlot } from './server-slot.js';
import type { InflightCall, LiveConnection, McpConnector } from './server-slot.js';
import { toToolCallError } from './to-tool-call-error.js';
import { answerInputRequests, askPerson, isInputRequired, MAX_INPUT_ROUNDS, type AskingCall } from './input-requests.js';

/** Per-call timeout when neither the server config nor the options say otherwise. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;
/** How long progress notifications may keep a call alive, unless configured. */
export const DEFAULT_MCP_MAX_TOTAL_TIMEOUT_MS = 600_000;

export interface McpBackendServer {
  /** The server's name in the config (`mcpServers.<name>`). */
  name: string;
  config: McpServerConfig;
}

export interface McpBackendOptions {
  /** Servers by module name (`mcp-everything`). */
  servers: Record<string, McpBackendServer>;
  /** Opens a connection; defaults to {@link connectMcpServer}. Inject one for in-memory servers. */
  connect?: McpConnector;
  defaultTimeoutMs?: number;
  defaultMaxTotalTimeoutMs?: number;
  /**
   * The host log: what a server wrote to stderr before it failed to start or exited during a call,
   * redacted. Programs only learn that it happened ("see the host log"). The pool also keeps the last
   * entries itself ({@link McpBackend.hostLog}).
   */
  log?: (entry: string) => void;
}

export interface McpBackendConnectionInfo {
  module: string;
  server: string;
  transport: string;
  pid?: number;
  /** How many connections the pool has opened to this server (restarts included). */
  connects: number;
}

/** The MCP client pool behind the bridge. */
export interface McpBackend extends Backend {
  /** Live connections (servers started and not crashed or closed). */
  connectionCount(): number;
  /** What is open, per server. */
  connections(): McpBackendConnectionInfo[];
  /** The last entries of the host log (servers' stderr when they failed), redacted, oldest first. */
  hostLog(): string[];
}

/** How many host log entries the pool keeps, and how long one may be. */
const HOST_LOG_ENTRIES = 50;
const HOST_LOG_ENTRY_CHARS = 4096;

/**
 * Creates the MCP client pool: one connection per server, opened on its first call, shared by
 * concurrent calls, reused across calls and runs, restarted on the next call after a crash, closed by
 * `close()`. Calls use `tools/call` with the tool's original name and resolve as `resultKind` and
 * `resultMode` say; every fault rejects with a `ToolCallError` naming the server and tool.
 */
export function createMcpBackend(options: McpBackendOptions): McpBackend {
  return new McpClientPool(options);
}

type CallTarget = { capability: string; function: string };

/** The pool behind {@link createMcpBackend}: its server slots, the host log and the calls in flight per run. */
class McpClientPool implements McpBackend {
  readonly #slots = new Map<string, ServerSlot>();
  readonly #defaultTimeoutMs: number;
  readonly #defaultMaxTotalTimeoutMs: number;
  // Everything in a server's configuration is a secret; a server may echo any of it (or another's) in
  // an error, so every error the pool raises is redacted here, once, with all of them.
  readonly #redact: Redactor;
  readonly #hostLog: string[] = [];
  readonly #onLog: ((entry: string) => void) | undefined;
  // One abort listener per run, not per call: a run may have hundreds of calls in flight.
  readonly #runs = new WeakMap<AbortSignal, Set<InflightCall>>();
  #closed = false;

  constructor(options: McpBackendOptions) {
    const connect: McpConnector =
      options.connect ?? ((name, config, connectOptions) => connectMcpServer(name, config, connectOptions ?? {}));
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
    this.#defaultMaxTotalTimeoutMs = options.defaultMaxTotalTimeoutMs ?? DEFAULT_MCP_MAX_TOTAL_TIMEOUT_MS;
    this.#redact = createRedactor({ secrets: Object.values(options.servers).flatMap((server) => secretsOfMcpServer(server.config)) });
    this.#onLog = options.log;
    for (const [module, server] of Object.entries(options.servers)) {
      const listTimeoutMs = server.config.timeoutMs ?? this.#defaultTimeoutMs;
      this.#slots.set(module, new ServerSlot({ module, server: server.name, config: server.config, connect, listTimeoutMs }));
    }
  }

  // Arrow properties: the backend's functions keep working when taken off the object.
  call = async (call: BackendCall): Promise<unknown> => {
    try {
      return await this.#callServer(call);
    } catch (error) {
      const failure =
        error instanceof ToolCallError
          ? error
          : new ToolCallError(
              'TOOL_FAILED',
              `call to ${call.capability.module}.${call.function.name} failed: ${errorMessage(error)}`,
              { capability: call.capability.module, function: call.function.name },
              { cause: error },
            );
      throw this.#redact.error(failure);
    }
  };

  /**
   * A program that names the module is starting: its server starts now, while the program is checked
   * and started, and the first call shares that start. A start that fails here is not reported: the
   * first call starts the server again and reports what failed.
   */
  prepare = (capability: CapabilitySpec): void => {
    const slot = this.#slots.get(capability.module);
    if (this.#closed || slot === undefined || slot.current !== undefined || slot.options.config.disabled === true) return;
    slot.acquire().catch(() => undefined);
  };

  close = async (): Promise<void> => {
    this.#closed = true;
    await Promise.all([...this.#slots.values()].map((slot) => slot.close()));
  };

  connectionCount = (): number => [...this.#slots.values()].filter((slot) => slot.current !== undefined).length;

  hostLog = (): string[] => [...this.#hostLog];

  connections = (): McpBackendConnectionInfo[] =>
    [...this.#slots.values()].flatMap((slot) => {
      const live = slot.current;
      if (live === undefined) return [];
      const { connection } = live;
      return [
        {
          module: slot.options.module,
          server: slot.options.server,
          transport: connection.transport,
          ...(connection.pid === undefined ? {} : { pid: connection.pid }),
          connects: slot.connects,
        },
      ];
    });

  async #callServer(call: BackendCall): Promise<unknown> {
    const target = { capability: call.capability.module, function: call.function.name };
    const slot = this.#usableSlot(call, target);
    const { server, config } = slot.options;
    const tool = call.function.toolName;
    const { signal } = call.context;
    // The common case, a live connection, takes no extra promise hop.
    const live = slot.current ?? (await this.#connectFor(slot, signal, tool, target));
    const drift = ServerSlot.driftOf(live, call.function);
    if (drift !== undefined) {
      throw new ToolCallError(
        'SCHEMA_CHANGED',
        `tool "${tool}" of MCP server "${server}" cannot be called: ${drift}. The tool list of MCP server "${server}" changed since the build; run \`agent-spaces capabilities build\``,
        target,
        { details: { server, tool, reason: drift } },
      );
    }

    const timeoutMs = config.timeoutMs ?? this.#defaultTimeoutMs;
    const maxTotalTimeoutMs = Math.max(config.maxTotalTimeoutMs ?? this.#defaultMaxTotalTimeoutMs, timeoutMs);
    const asking: AskingCall = { call, server, tool, redact: (text) => this.#redact(text) };
    const inflight = inflightCall(asking);
    const runCalls = this.#callsOfRun(signal);
    runCalls.add(inflight);
    live.inflight.add(inflight);
    try {
      const options = {
        signal: inflight.controller.signal,
        timeout: timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: maxTotalTimeoutMs,
        // A 2026-07-28 server's input_required comes back to us, answered below and retried.
        allowInputRequired: true,
        onprogress: (progress: { progress: number; total?: number; message?: string }) =>
          call.onProgress?.({
            progress: progress.progress,
            ...(progress.total === undefined ? {} : { total: progress.total }),
            // A progress message is the server's text like an error's: it may quote the server's secrets.
            ...(progress.message === undefined ? {} : { message: this.#redact(progress.message) }),
          }),
      };
      const result = await callToolAnsweringInput(live, asking, options, target);
      return mapToolResult(asCallToolResult(result as Record<string, unknown>), call.function, call.resultMode, {
        ...target,
        server,
        tool,
      });
    } catch (error) {
      if (error instanceof ToolCallError) throw error;
      if (!live.alive) {
        // The child's last stderr lines arrive just after it closes; let them land before logging them.
        await new Promise((resolve) => setTimeout(resolve, 20));
        this.#logExit(live, server);
      }
      throw toToolCallError(error, { ...target, server, tool, timeoutMs, maxTotalTimeoutMs, inflight, live });
    } finally {
      runCalls.delete(inflight);
      live.inflight.delete(inflight);
    }
  }

  /** The slot of the call's server, when the pool is open, the server enabled and the run not over. */
  #usableSlot(call: BackendCall, target: CallTarget): ServerSlot {
    const slot = this.#slots.get(call.capability.module);
    if (slot === undefined) {
      throw new ToolCallError('UNKNOWN_CAPABILITY', `no MCP server is configured for module "${call.capability.module}"`, target);
    }
    const { server, config } = slot.options;
    const tool = call.function.toolName;
    if (this.#closed) {
      throw new ToolCallError(
        'SERVER_UNAVAILABLE',
        `cannot call tool "${tool}" of MCP server "${server}": the MCP backend is closed`,
        target,
      );
    }
    if (config.disabled === true) {
      throw new ToolCallError(
        'SERVER_UNAVAILABLE',
        `cannot call tool "${tool}": MCP server "${server}" is disabled in the config`,
        target,
        { details: { server, tool } },
      );
    }
    if (call.context.signal.aborted) {
      throw new ToolCallError('CANCELLED', `call to tool "${tool}" of MCP server "${server}" was cancelled before it was sent`, target);
    }
    return slot;
  }

  #callsOfRun(signal: AbortSignal): Set<InflightCall> {
    let calls = this.#runs.get(signal);
    if (calls === undefined) {
      const created = new Set<InflightCall>();
      calls = created;
      this.#runs.set(signal, created);
      signal.addEventListener(
        'abort',
        () => {
          for (const inflight of created) {
            inflight.failure ??= { kind: 'cancelled' };
            inflight.controller.abort(signal.reason);
          }
        },
        { once: true },
      );
    }
    return calls;
  }

  async #connectFor(slot: ServerSlot, signal: AbortSignal, tool: string, target: CallTarget): Promise<LiveConnection> {
    const { server } = slot.options;
    try {
      return await untilAborted(slot.acquire(), signal);
    } catch (error) {
      if (signal.aborted) {
        throw new ToolCallError(
          'CANCELLED',
          `call to tool "${tool}" of MCP server "${server}" was cancelled while the server was starting`,
          target,
        );
      }
      // The program learns what failed, not what the server said: that goes to the host log.
      const logged = error instanceof McpConnectError && error.stderr.trim() !== '';
      if (logged) this.#log(`${error.reason}; stderr:\n${error.stderr.trim()}`);
      throw unavailableError(error, server, tool, target, logged);
    }
  }

  /** Logs once what a server that died during calls wrote to stderr. */
  #logExit(live: LiveConnection, server: string): void {
    if (live.exitLogged === true) return;
    live.exitLogged = true;
    const stderr = live.connection.stderrTail().trim();
    if (stderr === '') return;
    const exit = live.connection.exitStatus?.();
    this.#log(`MCP server "${server}" ${exit === undefined ? 'closed the connection' : `exited (${exit})`}; stderr:\n${stderr}`);
  }

  #log(entry: string): void {
    // Redacted before it is cut, so the cut never leaves the end of a secret at the start of the line.
    const redacted = this.#redact.text(entry);
    const line = redacted.length > HOST_LOG_ENTRY_CHARS ? `…${redacted.slice(-HOST_LOG_ENTRY_CHARS)}` : redacted;
    this.#hostLog.push(line);
    if (this.#hostLog.length > HOST_LOG_ENTRIES) this.#hostLog.shift();
    this.#onLog?.(line);
  }
}

/** A call in flight, answering a 2025-era server's elicitation/create (asked while the call runs) through the approvals. */
function inflightCall(asking: AskingCall): InflightCall {
  const inflight: InflightCall = {
    controller: new AbortController(),
    answerElicitation: async (request, alone) => {
      inflight.askedPerson = true;
      try {
        return await askPerson(asking, request);
      } catch (error) {
        if (!(error instanceof ToolCallError) || !alone) return { action: 'decline' };
        // Denied: the call does not go on (the server is sent notifications/cancelled).
        inflight.failure ??= { kind: 'denied', error };
        inflight.controller.abort();
        return { action: 'decline' };
      }
    },
  };
  return inflight;
}

/**
 * `tools/call`, answering a 2026-07-28 server's `input_required` results (at most
 * {@link MAX_INPUT_ROUNDS} rounds) and sending the call again with the answers.
 */
async function callToolAnsweringInput(
  live: LiveConnection,
  asking: AskingCall,
  options: Parameters<LiveConnection['connection']['client']['callTool']>[1],
  target: CallTarget,
): Promise<unknown> {
  const { call, server, tool } = asking;
  // The call's span goes on to the server as W3C trace context (MCP `_meta`), so its spans join the trace.
  const request = {
    name: tool,
    arguments: call.args,
    ...(call.traceparent === undefined ? {} : { _meta: { traceparent: call.traceparent } }),
  };
  const { connection } = live;
  const callTool: Client['callTool'] = connection.callTool ?? ((params, callOptions) => connection.client.callTool(params, callOptions));
  let result: unknown = await callTool(request, options);
  for (let round = 1; isInputRequired(result); round += 1) {
    if (round > MAX_INPUT_ROUNDS) {
      throw new ToolCallError(
        'TOOL_FAILED',
        `MCP server "${server}" still asked for input after ${MAX_INPUT_ROUNDS} rounds of tool "${tool}"; the call was given up`,
        target,
        { details: { server, tool, rounds: MAX_INPUT_ROUNDS } },
      );
    }
    const inputResponses = await answerInputRequests(asking, result.inputRequests ?? {});
    // The request state is the server's: echoed byte for byte, never read.
    const retry = { ...request, inputResponses, ...(result.requestState === undefined ? {} : { requestState: result.requestState }) };
    result = await callTool(retry, options);
  }
  return result;
}

/** The `SERVER_UNAVAILABLE` error of a server that could not be started or reached. */
function unavailableError(error: unknown, server: string, tool: string, target: CallTarget, logged: boolean): ToolCallError {
  const reason =
    error instanceof McpConnectError
      ? error.reason
      : error instanceof AgentSpacesError
        ? error.message
        : `MCP server "${server}": ${errorMessage(error)}`;
  const exit = error instanceof AgentSpacesError ? error.details?.exit : undefined;
  return new ToolCallError(
    'SERVER_UNAVAILABLE',
    `cannot call tool "${tool}": ${reason}${logged ? '; see the host log for its stderr' : ''}`,
    target,
    {
      details: {
        server,
        tool,
        ...(error instanceof AgentSpacesError ? { connectCode: error.code } : {}),
        ...(typeof exit === 'string' ? { exit } : {}),
      },
      cause: error,
    },
  );
}

/** The module name → server map a manifest and config give, for {@link createMcpBackend}. */
export function mcpServersOf(
  capabilities: readonly CapabilitySpec[],
  configs: Record<string, McpServerConfig>,
): Record<string, McpBackendServer> {
  const servers: Record<string, McpBackendServer> = {};
  for (const capability of capabilities) {
    if (capability.source.kind !== 'mcp') continue;
    const config = configs[capability.source.server];
    if (config === undefined || config.disabled === true) continue;
    servers[capability.module] = { name: capability.source.server, config };
  }
  return servers;
}

function asCallToolResult(result: Record<string, unknown>): CallToolResult {
  // With the default result schema the SDK has already checked this shape; the guard narrows its union type.
  if (!Array.isArray(result.content)) throw new Error('the result has no content array');
  return result as CallToolResult;
}

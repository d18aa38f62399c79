import type { ElicitResult, Tool } from '@modelcontextprotocol/client';
import type { FunctionSpec } from '../../core/index.js';
import type { McpServerConfig } from '../../config/index.js';
import { listAllTools } from './connect.js';
import type { McpConnection, McpElicitation } from './connect.js';
import type { ToolCallError } from '../../core/index.js';
import { trackChildProcess } from './exit-cleanup.js';
import { findSchemaDrift } from './schema-drift.js';

/**
 * Opens a connection to one configured server. `onElicitation` answers a 2025-era server's questions
 * during calls (a connector that ignores it connects a client that declares no elicitation).
 */
export type McpConnector = (
  name: string,
  config: McpServerConfig,
  options?: { onElicitation?: (request: McpElicitation) => Promise<ElicitResult> },
) => Promise<McpConnection>;

/** A call waiting for its answer on a live connection. */
export interface InflightCall {
  controller: AbortController;
  /** Why the call was ended from our side, when it was. */
  failure?: { kind: 'cancelled' } | { kind: 'malformed'; detail: string } | { kind: 'denied'; error: ToolCallError };
  /**
   * Answers a server's elicitation in this call's name (through the bridge's approvals). `alone`:
   * this is the only call in flight on the connection, so the question is surely this call's.
   */
  answerElicitation?: (request: McpElicitation, alone: boolean) => Promise<ElicitResult>;
  /** Whether the server asked a person something during this call (2025 era: the call's timer kept running meanwhile). */
  askedPerson?: boolean;
}

/** One open connection of the pool, with what we learned about it. */
export interface LiveConnection {
  readonly connection: McpConnection;
  alive: boolean;
  /** The server's tools by original name, as listed when this connection opened. */
  tools: Map<string, Tool>;
  /** Per built function: why it drifted from the live tool list (`undefined`: unchanged). */
  readonly drift: WeakMap<FunctionSpec, string | undefined>;
  readonly inflight: Set<InflightCall>;
  /** Whether the pool has logged this connection's stderr after it died. */
  exitLogged?: boolean;
}

export interface ServerSlotOptions {
  module: string;
  server: string;
  config: McpServerConfig;
  connect: McpConnector;
  listTimeoutMs: number;
}

/**
 * The pool's place for one server: connects on first use, shares that connection with every call
 * (concurrent first calls wait for the same start), and reconnects on the next call after the
 * connection died (a crashed stdio server is restarted).
 */
export class ServerSlot {
  private live: LiveConnection | undefined;
  private pending: Promise<LiveConnection> | undefined;
  private closed = false;
  /** How many connections this slot has opened. */
  connects = 0;

  constructor(readonly options: ServerSlotOptions) {}

  /**
   * Why `spec` must not be called on this connection (its tool is gone or changed since the build),
   * checked once per function and connection; `undefined` when it may be called.
   */
  static driftOf(live: LiveConnection, spec: FunctionSpec): string | undefined {
    if (!live.drift.has(spec)) live.drift.set(spec, findSchemaDrift(spec, live.tools.get(spec.toolName)));
    return live.drift.get(spec);
  }

  /** The live connection, opening one when there is none. */
  acquire(): Promise<LiveConnection> {
    if (this.live?.alive === true) return Promise.resolve(this.live);
    this.pending ??= this.open().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  get current(): LiveConnection | undefined {
    return this.live?.alive === true ? this.live : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    const opening = this.pending?.catch(() => undefined);
    await opening;
    const live = this.live;
    this.live = undefined;
    if (live !== undefined) await live.connection.close().catch(() => undefined);
  }

  /**
   * A 2025-era server's question during a call. The protocol does not say which call it belongs to:
   * with one call in flight it is that call's; with several it is asked in the name of the oldest
   * (and a denial only declines, failing no particular call); with none it is declined.
   */
  private elicit(request: McpElicitation): Promise<ElicitResult> {
    const calls = [...(this.live?.inflight ?? [])];
    const oldest = calls[0];
    if (oldest?.answerElicitation === undefined) return Promise.resolve({ action: 'decline' });
    return oldest.answerElicitation(request, calls.length === 1);
  }

  private async open(): Promise<LiveConnection> {
    const previous = this.live;
    this.live = undefined;
    if (previous !== undefined) await previous.connection.close().catch(() => undefined);

    const { server, config, connect } = this.options;
    const connection = await connect(server, config, { onElicitation: (request) => this.elicit(request) });
    this.connects += 1;
    const live = watch(connection);
    if (this.closed) {
      await connection.close().catch(() => undefined);
      throw new Error(`the MCP backend was closed while MCP server "${server}" was starting`);
    }
    try {
      const tools = await listAllTools(connection.client, { timeout: this.options.listTimeoutMs });
      live.tools = new Map(tools.map((tool) => [tool.name, tool]));
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
    this.live = live;
    return live;
  }
}

/** Follows a connection's life: closes mark it dead, malformed messages fail the calls in flight. */
function watch(connection: McpConnection): LiveConnection {
  const live: LiveConnection = { connection, alive: true, tools: new Map(), drift: new WeakMap(), inflight: new Set() };
  const untrack = connection.pid === undefined ? () => undefined : trackChildProcess(connection.pid);
  const { client } = connection;
  const previousClose = client.onclose;
  client.onclose = () => {
    previousClose?.();
    live.alive = false;
    untrack();
  };
  const previousError = client.onerror;
  client.onerror = (error) => {
    previousError?.(error);
    if (!isMalformedMessage(error)) return;
    // A stdio stream carries no request id on a line that does not parse: we cannot tell which call
    // it answers, so every call in flight on this connection fails rather than waits for its timeout.
    const detail = error.message.length > 500 ? `${error.message.slice(0, 500)}…` : error.message;
    for (const call of live.inflight) {
      call.failure ??= { kind: 'malformed', detail };
      call.controller.abort();
    }
  };
  return live;
}

/** A line that is not JSON, or JSON that is not a JSON-RPC message. */
function isMalformedMessage(error: Error): boolean {
  if (error instanceof SyntaxError) return true;
  if ('issues' in error && Array.isArray(error.issues)) return true;
  return error.message.startsWith('Unknown message type');
}

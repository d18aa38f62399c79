import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as NodeSdk from '@modelcontextprotocol/node';
import type { NodeIncomingMessageLike, NodeServerResponseLike } from '@modelcontextprotocol/node';
import type * as ServerSdk from '@modelcontextprotocol/server';
import type { McpServer, Server } from '@modelcontextprotocol/server';
import { errorMessage } from '../core/index.js';
import type { Refusal } from './http-guard.js';
import { refuse } from './refuse.js';
import { tagServerRequests } from './tag-server-requests.js';

/** What `serveMcp` serves: the SDK's (v2) `McpServer` or low-level `Server`, made once per session, stdio connection or 2026-07-28 request. */
export type ConnectableMcpServer = McpServer | Server;

/**
 * Where replicas behind a load balancer share their 2025-11-25 sessions (a store's table): a session
 * initialized on one replica is served by any replica that finds it here. `record` and `touch` mark a
 * session as seen (and give that `seen` mark); `touch` gives its `initialize` parameters, or `undefined`
 * when it is unknown, closed or idle too long; `release` forgets a session this replica let go of unless
 * another saw it since; `remove` forgets it (closed by its client).
 */
export interface SharedSessions {
  record(id: string, init: unknown): Promise<string>;
  touch(id: string): Promise<{ init: unknown; seen: string } | undefined>;
  release(id: string, seen: string): Promise<void>;
  remove(id: string): Promise<void>;
}

/** One 2025-11-25 session served by this process. */
export interface McpSession {
  id: string;
  server: ConnectableMcpServer;
  /** Hands one HTTP request of the session to its transport. */
  serve: (request: IncomingMessage, response: ServerResponse, body: unknown) => Promise<void>;
  lastSeen: number;
  /** Requests of this session still being answered (an SSE stream stays open for long). */
  open: number;
  /** With shared sessions: when this replica last saw the session in the store. */
  sharedSeen?: string;
}

export interface McpSessionsOptions {
  create: () => ConnectableMcpServer | Promise<ConnectableMcpServer>;
  limits: { maxSessions: number; sessionIdleMs: number; maxBodyBytes: number };
  shared: SharedSessions | undefined;
  log: (line: string) => void;
  /** The SDK's modules, loaded when the server starts. */
  sdk: { node: typeof NodeSdk; server: typeof ServerSdk };
}

/** The largest `initialize` parameters a shared session keeps (client info and capabilities are far smaller). */
const MAX_SHARED_INIT_CHARS = 64 * 1024;

/**
 * The 2025-11-25 sessions of one HTTP server: started by `initialize`, capped (the longest-idle session
 * with no request open makes room for a new one), closed when idle, and — with shared sessions — recorded
 * in the store the replicas share, checked there on every request and taken up from another replica.
 */
export class McpSessions {
  readonly #sessions = new Map<string, McpSession>();
  /** Sessions of other replicas being taken up here (two requests of one session at once restore it once). */
  readonly #restoring = new Map<string, Promise<McpSession | Refusal>>();
  readonly #options: McpSessionsOptions;
  /** Sessions being started: counted against the cap before their first await. */
  #starting = 0;

  constructor(options: McpSessionsOptions) {
    this.#options = options;
  }

  /**
   * The session a request names: this process's own, or (with shared sessions) one another replica
   * opened, taken up here. With shared sessions every request also asks the store whether the session
   * is still open (closed on another replica, or idle too long, it is closed here too) and marks it seen.
   */
  async find(id: string): Promise<McpSession | Refusal | undefined> {
    const { shared, log } = this.#options;
    const local = this.#sessions.get(id);
    if (!shared) return local;
    let touched: { init: unknown; seen: string } | undefined;
    try {
      touched = await shared.touch(id);
    } catch (error) {
      log(`MCP session ${id}: the shared session store failed: ${errorMessage(error)}`);
      return { status: 503, code: -32000, message: 'the session store (shared by the replicas) cannot be reached; retry later' };
    }
    if (touched === undefined) {
      if (local) void this.#close(local, 'closed on another replica, or idle for too long');
      return undefined;
    }
    if (local) {
      local.sharedSeen = touched.seen;
      return local;
    }
    const pending = this.#restoring.get(id) ?? this.#restore(id, touched.init, touched.seen).finally(() => this.#restoring.delete(id));
    this.#restoring.set(id, pending);
    return pending;
  }

  /** Starts a session for an `initialize` request (its parsed body), making room for it, or refuses. */
  async initialize(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const { shared } = this.#options;
    const init = (body as { params?: unknown }).params;
    // Refused before it makes room: a request that starts no session must evict none.
    if (shared && JSON.stringify(init ?? {}).length > MAX_SHARED_INIT_CHARS) {
      return refuse(response, {
        status: 400,
        code: -32600,
        message: `the initialize parameters are larger than ${MAX_SHARED_INIT_CHARS} characters: too large to share the session with the other replicas`,
      });
    }
    const room = this.#makeRoom();
    if (!room) {
      response.setHeader('retry-after', '5');
      return refuse(response, this.#tooManySessions());
    }
    // Counted before the first await, so concurrent initializes cannot overshoot the cap.
    this.#starting++;
    try {
      await room;
      const id = randomUUID();
      let sharedSeen: string | undefined;
      if (shared) {
        // Recorded before the client learns the id: its next request may reach another replica first.
        const recorded = await this.#recordShared(id, init);
        if ('status' in recorded) return refuse(response, recorded);
        sharedSeen = recorded.seen;
      }
      await this.#connect(id, await this.#options.create(), request, response, body, sharedSeen);
    } finally {
      this.#starting--;
    }
  }

  /** Closes the sessions with no request open for longer than the idle limit. */
  closeIdle(): void {
    const now = performance.now();
    const { sessionIdleMs } = this.#options.limits;
    for (const session of this.#sessions.values()) {
      if (session.open === 0 && now - session.lastSeen > sessionIdleMs) void this.#close(session, `idle for more than ${sessionIdleMs} ms`);
    }
  }

  /** Closes every session's server (the HTTP server is closing); shared rows stay for the other replicas. */
  async closeAll(): Promise<void> {
    const closing = [...this.#sessions.values()].map((session) => session.server.close().catch(() => undefined));
    this.#sessions.clear();
    await Promise.all(closing);
  }

  /** Closes this replica's copy of a session; resolves once a shared session's row is released too. */
  #close(session: McpSession, reason: string): Promise<void> {
    const { shared, log } = this.#options;
    if (this.#sessions.get(session.id) !== session) return Promise.resolve();
    this.#sessions.delete(session.id);
    log(`MCP session ${session.id} closed: ${reason}`);
    void session.server.close().catch(() => undefined);
    // Evicted or idle here: its row goes too, unless another replica has used the session since. So the
    // store holds no more sessions than the replicas' caps, however many initializes arrive.
    if (shared && session.sharedSeen !== undefined) {
      return shared
        .release(session.id, session.sharedSeen)
        .catch((error: unknown) =>
          log(`MCP session ${session.id}: could not release it in the shared session store: ${errorMessage(error)}`),
        );
    }
    return Promise.resolve();
  }

  /**
   * Makes room for one more session: evicts the longest-idle session with no request open, if need be
   * (resolved once it is released in the shared store); `false` when every session is busy.
   */
  #makeRoom(): Promise<void> | false {
    const { maxSessions } = this.#options.limits;
    if (this.#sessions.size + this.#starting < maxSessions) return Promise.resolve();
    let idlest: McpSession | undefined;
    for (const session of this.#sessions.values()) {
      if (session.open === 0 && (!idlest || session.lastSeen < idlest.lastSeen)) idlest = session;
    }
    if (!idlest) return false;
    return this.#close(idlest, `evicted, the longest idle of ${maxSessions} sessions (the cap) when a new one started`);
  }

  #tooManySessions(): Refusal {
    return {
      status: 503,
      code: -32000,
      message: `too many sessions: all ${this.#options.limits.maxSessions} are busy with open requests; retry later, or close sessions you no longer use (DELETE /mcp)`,
    };
  }

  async #recordShared(id: string, init: unknown): Promise<{ seen: string } | Refusal> {
    try {
      return { seen: (await this.#options.shared?.record(id, init)) ?? '' };
    } catch (error) {
      this.#options.log(`MCP session ${id}: the shared session store failed: ${errorMessage(error)}`);
      return {
        status: 503,
        code: -32000,
        message: 'the session store (shared by the replicas) cannot be reached, so no session can start; retry later',
      };
    }
  }

  /**
   * Takes up a session another replica initialized: a new MCP server instance, initialized here with
   * the session's recorded \`initialize\` parameters (so it knows the client's capabilities, e.g.
   * elicitation), on a transport answering to the same session id.
   */
  async #restore(id: string, init: unknown, sharedSeen: string): Promise<McpSession | Refusal> {
    const { log, limits, sdk } = this.#options;
    const room = this.#makeRoom();
    if (!room) return this.#tooManySessions();
    this.#starting++;
    try {
      await room;
      const server = await this.#options.create();
      const transport = new sdk.server.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        onsessionclosed: (closed) => this.#forgetShared(closed),
        maxRequestBodySize: limits.maxBodyBytes,
      });
      const cannotTakeUp = (reason: string): Refusal => {
        void server.close().catch(() => undefined);
        log(`MCP session ${id}: could not be taken up here (${reason})`);
        return {
          status: 404,
          code: -32001,
          message: 'session not found: it could not be taken up on this replica; start a new one with initialize',
        };
      };
      try {
        await server.connect(transport);
        tagServerRequests(transport, id, log);
        const primed = await transport.handleRequest(
          syntheticRequest({ jsonrpc: '2.0', id: 'agent-spaces-restore', method: 'initialize', params: init }),
        );
        const answer = await primed.text();
        if (primed.status !== 200 || !answer.includes('"result"')) return cannotTakeUp(`${primed.status}: ${answer.slice(0, 200)}`);
        await (await transport.handleRequest(syntheticRequest({ jsonrpc: '2.0', method: 'notifications/initialized' }, id))).text();
      } catch (error) {
        // The new server instance must not outlive a take-up that failed half-way.
        return cannotTakeUp(errorMessage(error));
      }
      const fetchable = sdk.node.toNodeHandler(
        {
          fetch: (request, options) =>
            transport.handleRequest(request, options?.parsedBody === undefined ? {} : { parsedBody: options.parsedBody }),
        },
        { maxRequestBodySize: limits.maxBodyBytes },
      );
      const session: McpSession = {
        id,
        server,
        serve: (request, response, body) => fetchable(request as NodeIncomingMessageLike, response as NodeServerResponseLike, body),
        lastSeen: performance.now(),
        open: 0,
        sharedSeen,
      };
      transport.onclose = () => {
        if (this.#sessions.get(id) === session) this.#sessions.delete(id);
      };
      this.#sessions.set(id, session);
      log(`MCP session ${id}: taken up from another replica`);
      return session;
    } finally {
      this.#starting--;
    }
  }

  /** Connects a new session's server to its transport and answers its `initialize` request. */
  async #connect(
    id: string,
    server: ConnectableMcpServer,
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
    sharedSeen?: string,
  ): Promise<void> {
    const sessions = this.#sessions;
    const transport = new this.#options.sdk.node.NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () =>
        void sessions.set(id, {
          id,
          server,
          serve: (request, response, body) => transport.handleRequest(request, response, body),
          lastSeen: performance.now(),
          open: 0,
          ...(sharedSeen === undefined ? {} : { sharedSeen }),
        }),
      onsessionclosed: (closed) => this.#forgetShared(closed),
    });
    transport.onclose = () => {
      if (sessions.get(id)?.server === server) sessions.delete(id);
    };
    try {
      await server.connect(transport);
      if (this.#options.shared) tagServerRequests(transport, id, this.#options.log);
      await transport.handleRequest(request, response, body);
    } finally {
      // An initialize the transport rejected leaves no session behind: nothing else would close it.
      if (!transport.sessionId || sessions.get(transport.sessionId)?.server !== server) void server.close().catch(() => undefined);
    }
  }

  #forgetShared(id: string | undefined): void {
    const { shared, log } = this.#options;
    if (shared && id)
      void shared
        .remove(id)
        .catch((error: unknown) => log(`MCP session ${id}: could not remove it from the shared session store: ${errorMessage(error)}`));
  }
}

/** A request to a transport from this process itself (taking up a shared session): no socket, no network. */
function syntheticRequest(message: unknown, sessionId?: string): Request {
  return new Request('http://localhost/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(message),
  });
}

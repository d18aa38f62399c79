import { describeStore, openServeStore, type ServeStore } from '../store/index.js';
import { createSpace, type Space, type SpaceOptions } from '../space/index.js';
import { createAgentSpacesMcpServer } from './create-mcp-server.js';
import { createRunRouter } from './run-router.js';
import { ServeError } from './serve-error.js';
import type { ServeMode } from './invoke-tools.js';
import { DEFAULT_HTTP_LIMITS, resolveHttpBind, serveMcp, type McpServeOptions } from './serve-mcp.js';

export const SERVER_INFO = { name: 'agent-spaces', version: '0.1.0' };
/**
 * Sandbox worker processes over HTTP when the config names none. Handed to the space as its default, so
 * the count of slots below is the space's own, not a copy of the runtime's default.
 */
const DEFAULT_SANDBOX_WORKERS = 2;

export interface ServeOptions extends Omit<SpaceOptions, 'approvalHandler' | 'onEvent'>, McpServeOptions {
  /** How the space is made (default `createSpace`); the CLI passes `openSpace`, which adds the config's agents. */
  openSpace?: (options: SpaceOptions) => Promise<Space>;
  /**
   * Key sealing the approval state and result handles handed to clients (32+ characters). Default
   * `$AGENT_SPACES_STATE_KEY`, else a random key per process; replicas behind a load balancer share one.
   */
  stateKey?: string;
  /**
   * A durable runs' store (PostgreSQL URL): `execute_code` submits programs there and `agent-spaces
   * worker`s run them; 2025-11-25 sessions are recorded there. Replicas sharing the store and the state
   * key serve any client: a session or an approval round started on one replica goes on at another.
   */
  store?: string;
  /**
   * The tools offered: `code` (default) search_tools, get_types, execute_code; `invoke` search_tools and
   * call_tool, no code, for any MCP client; `both` all four. See server/invoke-tools.ts.
   */
  mode?: ServeMode;
  /** Offer the `save_program` tool (code mode): clients may then save programs into the space (default false). */
  savePrograms?: boolean;
}

export interface RunningServer {
  space: Space;
  /** For HTTP: the address actually bound (port 0 picks a free one). */
  url?: string;
  close(): Promise<void>;
}

/**
 * Serves a space over MCP (stdio by default, Streamable HTTP with `http`): one MCP server per session.
 * Over HTTP the code comes from remote callers, so it always runs in worker isolation: `isolation:
 * 'in-process'` or `'thread'` is refused, and either in the config's `sandbox.isolation` is overridden.
 */
export async function serveSpace(options: ServeOptions): Promise<RunningServer> {
  const { http, log = () => undefined, openSpace = createSpace, stateKey, store: storeUrl, mode, savePrograms, ...spaceOptions } = options;
  if (http) {
    if (spaceOptions.isolation === 'in-process' || spaceOptions.isolation === 'thread') {
      throw new ServeError(
        'SERVE_IN_PROCESS_REFUSED',
        `refusing ${spaceOptions.isolation} isolation for serve --http: code from remote callers always runs in worker isolation (sandbox processes). Drop --isolation ${spaceOptions.isolation} (it shares the host's process: for trusted code, e.g. serve on stdio)`,
      );
    }
    // Refuse an unsafe address before building the space and connecting its servers.
    await resolveHttpBind(http);
  }
  const store: ServeStore | undefined =
    storeUrl === undefined
      ? undefined
      : await openServeStore(storeUrl, { sessionIdleMs: http?.sessionIdleMs ?? DEFAULT_HTTP_LIMITS.sessionIdleMs });
  const router = createRunRouter({ ...(stateKey === undefined ? {} : { stateKey }), ...(store ? { store } : {}) });
  // Over HTTP, callers are other tenants: worker isolation, one program per worker unless configured.
  const space = await openSpace({
    ...spaceOptions,
    ...(http ? { isolation: 'worker' as const, sandboxDefaults: { workers: DEFAULT_SANDBOX_WORKERS, runsPerWorker: 1 } } : {}),
    onEvent: router.onEvent,
    approvalHandler: router.approve,
  }).catch(async (error: unknown) => {
    await store?.close().catch(() => undefined);
    throw error;
  });
  if (http && !store) {
    // A run waiting for approval keeps its sandbox slot (a worker process's run); runs waiting for
    // clients that never answer must leave one slot for everyone else.
    const slots = (space.config.sandbox.workers ?? DEFAULT_SANDBOX_WORKERS) * (space.config.sandbox.runsPerWorker ?? 1);
    router.limitWaitingRuns(slots - 1);
  }
  const configured = space.config.sandbox.isolation;
  if (http && (configured === 'in-process' || configured === 'thread')) {
    log(
      `agent-spaces: sandbox.isolation "${configured}" of the config is ignored over HTTP: code from remote callers runs in worker isolation`,
    );
  }
  try {
    const running = await serveMcp(
      () =>
        createAgentSpacesMcpServer(space, router, SERVER_INFO, {
          ...(mode === undefined ? {} : { mode }),
          savePrograms: savePrograms === true,
        }),
      {
        ...(http ? { http } : {}),
        ...(store ? { sharedSessions: store.sessions } : {}),
        log,
      },
    );
    log(
      running.url
        ? `agent-spaces: serving MCP (Streamable HTTP) at ${running.url}${http?.token ? ' (bearer token required)' : ''}`
        : 'agent-spaces: serving MCP on stdio',
    );
    if (store)
      log(`agent-spaces: execute_code runs are submitted to the store ${describeStore(store.url)} (agent-spaces worker runs them)`);
    if (store && http && space.config.durable?.approvalDeadlineMs === undefined) {
      // A remote client that never answers leaves its run waiting in the store, holding a worker's slot.
      log(
        'agent-spaces: durable.approvalDeadlineMs is not set: an approval nobody decides keeps its run (and a worker slot) waiting for ever; set it for the workers',
      );
    }
    return {
      space,
      ...(running.url ? { url: running.url } : {}),
      async close() {
        await running.close();
        router.close();
        await space.close();
        await store?.close();
      },
    };
  } catch (error) {
    await space.close();
    await store?.close().catch(() => undefined);
    throw error;
  }
}

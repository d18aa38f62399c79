import { createHash } from 'node:crypto';
import { ConfigError } from '../core/index.js';
import { createHost, type Host, type HostOptions, type HostSpaceOptions } from '../space/index.js';
import { createAgentSpacesMcpServer } from './create-mcp-server.js';
import type { ServeMode } from './invoke-tools.js';
import { createRunRouter, type SpaceRunRouter } from './run-router.js';
import { STATE_KEY_ENV } from './sealed-state.js';
import { SERVER_INFO } from './serve.js';
import { resolveHttpBind, serveMcpPaths, type McpHttpOptions } from './serve-mcp.js';

/** A space served by `serveSpaces`: its host options without the handlers serve installs (approvals go to the space's MCP clients). */
export type ServedSpaceOptions = Omit<HostSpaceOptions, 'approvalHandler' | 'engine'>;

export interface ServeSpacesOptions {
  /** Streamable HTTP: every space at `http://<host>:<port>/spaces/<name>/mcp`, with the limits and guards of `serveMcp`. */
  http: McpHttpOptions;
  /** The spaces, created on one host in this order (at least one; names as `createHost` takes them). */
  spaces: readonly ServedSpaceOptions[];
  /**
   * The host they are created on (registry, folder, `openSpace`). Its sandbox pool always isolates in
   * worker processes (code comes from remote callers); workers default to one per space plus one.
   */
  host?: Omit<HostOptions, 'sandbox'> & { sandbox?: Omit<NonNullable<HostOptions['sandbox']>, 'isolation'> };
  /** The tools each endpoint offers (see `serveSpace`). */
  mode?: ServeMode;
  /** Offer `save_program` at every endpoint (each saves into its own space). */
  savePrograms?: boolean;
  /** Key of sealed approval states and result handles; each space seals with its own key derived from it (default `$AGENT_SPACES_STATE_KEY`, else random). */
  stateKey?: string;
  log?: (line: string) => void;
}

export interface RunningSpaces {
  host: Host;
  /** Each space's endpoint by name. */
  urls: Record<string, string>;
  close(): Promise<void>;
}

/** The path of a space's MCP endpoint. */
export function spaceMcpPath(name: string): string {
  return `/spaces/${name}/mcp`;
}

/**
 * Serves several spaces of one host over Streamable HTTP, one MCP endpoint per space
 * (`/spaces/<name>/mcp`) on one port. Each endpoint is its own MCP server over its own space: its own
 * sessions (a session id of one is not found at another), its own run router (runs waiting for
 * approval, result handles, and approval states sealed with the space's own key, so a `requestState`
 * from one space does not open at another), and the space's own bridge (access, rate limits, traces,
 * session state). The spaces share the host's sandbox pool and MCP connections. A path naming no
 * space is answered 404, naming the served spaces, after the same Host/Origin and token checks.
 */
export async function serveSpaces(options: ServeSpacesOptions): Promise<RunningSpaces> {
  const { http, log = () => undefined } = options;
  if (options.spaces.length === 0) throw new ConfigError('serveSpaces needs at least one space', [{ path: 'spaces', message: 'empty' }]);
  // Refuse an unsafe address before building anything.
  await resolveHttpBind(http);
  const workers = options.host?.sandbox?.workers ?? Math.max(2, options.spaces.length + 1);
  const runsPerWorker = options.host?.sandbox?.runsPerWorker ?? 1;
  const host = await createHost({ ...options.host, sandbox: { ...options.host?.sandbox, workers, runsPerWorker, isolation: 'worker' } });
  const routers: SpaceRunRouter[] = [];
  try {
    // A run waiting for approval keeps its sandbox slot: together the spaces' waiting runs leave one free.
    const waiting = Math.max(1, Math.floor((workers * runsPerWorker - 1) / options.spaces.length));
    const paths = [];
    for (const spaceOptions of options.spaces) {
      const router = createRunRouter({ stateKey: spaceStateKey(options.stateKey ?? process.env[STATE_KEY_ENV], spaceOptions.name) });
      routers.push(router);
      router.limitWaitingRuns(waiting);
      const own = spaceOptions.onEvent;
      const space = await host.spaces.create({
        ...spaceOptions,
        approvalHandler: router.approve,
        onEvent: own ? (event) => (own(event), router.onEvent(event)) : router.onEvent,
      });
      const tools = { ...(options.mode === undefined ? {} : { mode: options.mode }), savePrograms: options.savePrograms === true };
      paths.push({ path: spaceMcpPath(spaceOptions.name), create: () => createAgentSpacesMcpServer(space, router, SERVER_INFO, tools) });
    }
    const names = options.spaces.map(({ name }) => `"${name}"`).join(', ');
    const running = await serveMcpPaths(paths, {
      http,
      log,
      notFound: `not found: this server serves the spaces ${names}, each at /spaces/<name>/mcp`,
    });
    const urls = Object.fromEntries(options.spaces.map(({ name }) => [name, running.urls[spaceMcpPath(name)] ?? '']));
    for (const [name, url] of Object.entries(urls)) log(`agent-spaces: serving space "${name}" over MCP (Streamable HTTP) at ${url}`);
    return {
      host,
      urls,
      async close() {
        await running.close();
        routers.forEach((router) => router.close());
        await host.close();
      },
    };
  } catch (error) {
    routers.forEach((router) => router.close());
    await host.close();
    throw error;
  }
}

/** Each space's own sealing key: derived from the shared key when there is one (replicas agree), else random per router. */
function spaceStateKey(key: string | undefined, name: string): string | undefined {
  if (key === undefined) return undefined;
  if (key.length < 32) return key; // the sealer refuses it, naming the variable
  return createHash('sha256').update(`agent-spaces space\0${name}\0${key}`).digest('hex');
}

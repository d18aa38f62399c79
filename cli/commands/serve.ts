import { openSpace } from '../../agents/index.js';
import { loadConfig } from '../../config/index.js';
import { SERVE_MODES, ServeError, serveSpace, type ServeMode } from '../../server/index.js';
import type { Space, SpaceOptions } from '../../space/index.js';
import { buildForRun } from '../build-report.js';
import { createStudioApprovals, studioAddressFrom, type StudioApprovals } from '../studio-approvals.js';
import { progress, UsageError } from '../output.js';
import { storeOf } from '../store-option.js';
import { ENGINE_CHOICES, ISOLATIONS, selectEngine, type EngineChoice, type Isolation } from '../../runtime/index.js';
import { waitForShutdown } from '../wait-for-shutdown.js';

export interface ServeCommandOptions {
  cwd: string;
  config?: string;
  http?: string;
  host?: string;
  token?: string;
  /** A studio's address (token included): its Approvals inbox decides every call that requires approval. */
  studio?: string;
  isolation?: string;
  engine?: string;
  /** A durable runs' store: execute_code runs go to its workers, and sessions are shared through it. */
  store?: string;
  /** What to offer: code (default), invoke (search_tools + call_tool, no code) or both. */
  mode?: string;
  /** Offer save_program (it writes saved programs into the space). */
  savePrograms?: boolean;
}

/** `agent-spaces serve`: the space as an MCP server until interrupted (or, on stdio, until stdin closes). */
export async function serveCommand(options: ServeCommandOptions): Promise<number> {
  let port: number | undefined;
  if (options.http !== undefined) {
    port = Number(options.http);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--http takes a port number (got "${options.http}")`);
  }
  if (options.isolation !== undefined && !(ISOLATIONS as readonly string[]).includes(options.isolation)) {
    throw new UsageError(`--isolation takes "worker", "thread" or "in-process" (got "${options.isolation}")`);
  }
  if (options.mode !== undefined && !(SERVE_MODES as readonly string[]).includes(options.mode)) {
    throw new UsageError(`--mode takes "code", "invoke" or "both" (got "${options.mode}")`);
  }
  const token = options.token ?? process.env.AGENT_SPACES_SERVE_TOKEN;
  const store = storeOf(options.store, await loadConfig({ cwd: options.cwd, ...(options.config ? { file: options.config } : {}) }));
  if (store !== undefined && options.studio !== undefined) {
    throw new UsageError(
      '--studio does not apply with a store: the approvals of stored runs wait in the store; decide them in a studio on the same store (agent-spaces studio --store), with agent-spaces approvals, or by the MCP client',
    );
  }
  if (store !== undefined && options.isolation !== undefined)
    throw new UsageError("--isolation does not apply with a store: the workers' config decides their sandbox");
  const studioAddress = studioAddressFrom(options.studio, undefined);
  const studio = studioAddress
    ? createStudioApprovals(studioAddress, {
        kind: 'serve',
        cwd: options.cwd,
        detail: port !== undefined ? `MCP over HTTP, port ${port}` : 'MCP on stdio',
      })
    : undefined;
  if (options.engine !== undefined && !(ENGINE_CHOICES as readonly string[]).includes(options.engine)) {
    throw new UsageError(`--engine takes ${ENGINE_CHOICES.join(', ')} (got "${options.engine}")`);
  }
  const running = await serveSpace({
    openSpace: withEngineLogged(
      studio ? openSpaceAskingStudio(studio) : openSpace,
      options.engine as EngineChoice | undefined,
      store !== undefined,
    ),
    cwd: options.cwd,
    ...(options.config ? { configFile: options.config } : {}),
    ...(options.isolation ? { isolation: options.isolation as Isolation } : {}),
    ...(store ? { store } : {}),
    ...(options.mode ? { mode: options.mode as ServeMode } : {}),
    ...(options.savePrograms === true ? { savePrograms: true } : {}),
    ...(port !== undefined ? { http: { port, ...(options.host ? { host: options.host } : {}), ...(token ? { token } : {}) } } : {}),
    log: progress,
  }).catch((error: unknown) => {
    // Refusals of an unsafe setup are usage problems (exit 2): the message says which option to change.
    if (error instanceof ServeError && error.code !== 'SERVE_BIND_FAILED') throw new UsageError(error.message);
    throw error;
  });
  await waitForShutdown(port === undefined);
  studio?.close();
  await running.close();
  return 0;
}

/**
 * Opens the space with `engine` (when given) and says once which sandbox engine its runs get, and why,
 * and, as `run` does, builds what is out of date (saying so) and warns of every module kept stale from
 * the last good build because its source failed (with a store, the workers' config and build decide).
 */
function withEngineLogged(
  open: (options: SpaceOptions) => Promise<Space>,
  engine: EngineChoice | undefined,
  stored: boolean,
): (options: SpaceOptions) => Promise<Space> {
  let logged = false;
  return async (options) => {
    const space = await open({ ...options, ...(engine === undefined ? {} : { engine }) });
    if (!logged && !stored) {
      logged = true;
      const isolation = options.isolation ?? space.config.sandbox.isolation ?? 'worker';
      const selection = await selectEngine(space.engine ?? 'auto', isolation);
      progress(`agent-spaces: sandbox engine ${selection.engine} (${selection.reason})`);
      await buildForRun(space).catch(async (error: unknown) => {
        await space.close();
        throw error;
      });
    }
    return space;
  };
}

/**
 * Opens the space with the studio as its approval handler: every call that requires approval, whichever
 * MCP client's run it comes from, waits in the studio's inbox (instead of asking the client by elicitation).
 */
function openSpaceAskingStudio(studio: StudioApprovals): (options: SpaceOptions) => Promise<Space> {
  return async (options) => {
    const space = await openSpace({
      ...options,
      approvalHandler: studio.handler,
      onEvent: (event) => {
        options.onEvent?.(event);
        studio.onEvent(event);
      },
    });
    studio.useSecrets(space.secrets);
    progress(`agent-spaces: approvals are asked in the studio at ${studio.origin}`);
    return space;
  };
}

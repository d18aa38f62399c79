import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  agentSpacesHome,
  EMPTY_REGISTRY,
  findRegistryFile,
  hasSelections,
  loadRegistry,
  mergeRegistries,
  resolveConfig,
  resolveRegistry,
  selectFromRegistry,
  type AgentSpacesConfigInput,
  type Registry,
  type RegistryInput,
  type ResolvedConfig,
} from '../../config/index.js';
import { ConfigError } from '../../core/index.js';
import { createSandboxPool, type EngineChoice, type SandboxPool } from '../../runtime/index.js';
import { createMcpSource, type CapabilitySource } from '../../sources/index.js';
import { createSpace, type Space, type SpaceOptions } from '../create-space.js';
import { createSharedMcpConnections, type SharedMcpConnections } from './shared-mcp-connections.js';

/** Folder and URL-path safe: `/spaces/<name>/mcp`, `<host>/spaces/<name>/`. */
const SPACE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export interface HostOptions {
  /** The host's folder (registry file, each space's build output): default `$AGENT_SPACES_HOME`, else `~/.agent-spaces`. */
  dir?: string;
  /** Capability definitions in code, over those of the registry file (same shape: `mcpServers`, `openapi`, `files`, `agents`, …). */
  registry?: RegistryInput;
  /** The registry file: default the first `registry.config.*` in `dir`; `false`: none. */
  registryFile?: string | false;
  /** Variables for `${VAR}` expansion in the registry and the spaces' configs (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** The one sandbox pool every space runs in: worker processes, programs per worker, isolation, engine. */
  sandbox?: { workers?: number; runsPerWorker?: number; isolation?: 'worker' | 'thread' | 'in-process'; engine?: EngineChoice };
  /** How each space is opened (default `createSpace`; the CLI passes `openSpace`, which adds the config's agents). */
  openSpace?: (options: SpaceOptions) => Promise<Space>;
}

/** A space of a host: its name, what it selects from the registry, and its own config (as `defineConfig` writes it, without `outDir`). */
export interface HostSpaceOptions
  extends Omit<AgentSpacesConfigInput, 'outDir'>, Pick<SpaceOptions, 'approvalHandler' | 'onEvent' | 'tracer' | 'journal' | 'engine'> {
  name: string;
  /**
   * Registry selections (`mcp:slack`, `sdk:company`, `openapi:*`, `files:crm`) and the space's own tool
   * files or globs (relative to `root`), in one list as in a config file.
   */
  capabilities?: string[];
  /** The folder the space's own relative paths are resolved against (default: its folder under the host, `<dir>/spaces/<name>`). */
  root?: string;
}

/** What `host.spaces.list()` says of one space. */
export interface HostSpaceInfo {
  name: string;
  /** The space's folder under the host and its build output folder. */
  dir: string;
  outDir: string;
  /** The registry selections it was created with. */
  selected: string[];
}

export interface Host {
  /** The host's folder. */
  readonly dir: string;
  /** The registry the spaces select from: the file's entries with those given in code over them. */
  readonly registry: Registry;
  readonly spaces: {
    /** Creates, registers and returns a space; a name in use, a bad name or a selection naming nothing is an error. */
    create(options: HostSpaceOptions): Promise<Space>;
    get(name: string): Space | undefined;
    list(): HostSpaceInfo[];
    /** Closes a space and forgets it (its build output stays). */
    remove(name: string): Promise<void>;
  };
  /** MCP connections open now, each shared by the spaces that reach the same server with the same credentials. */
  mcpConnections(): { open: number; opened: number };
  /**
   * The shared sandbox pool's workers: process ids (worker isolation), or `worker_threads` thread ids with
   * `isolation: 'thread'` (not processes: never pass them to `process.kill`); empty before the first space
   * starts, or in-process.
   */
  sandboxPids(): number[];
  close(): Promise<void>;
}

/**
 * A host of several spaces over one registry. The spaces share what is safe to share — one MCP
 * connection per server and credentials, one sandbox pool (each run resolves modules in its own
 * space's build output only), and the registry's definitions — and nothing else: each has its own
 * build output under `<dir>/spaces/<name>/`, bridge (access, approvals, rate limits, traces, journal)
 * and stored results.
 *
 * @example
 * const host = await createHost({ registry: { mcpServers: { slack: { command: 'slack-mcp' } } } });
 * const support = await host.spaces.create({ name: 'support', capabilities: ['mcp:slack', 'tools/*.json'] });
 * const result = await support.run(`import { postMessage } from '@capabilities/mcp-slack'; …`);
 * await host.close();
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const env = options.env ?? process.env;
  const dir = path.resolve(options.dir ?? agentSpacesHome(env));
  const registry = await hostRegistry(dir, options, env);
  const connections = createSharedMcpConnections();
  const spaces = new Map<string, { space: Space; info: HostSpaceInfo }>();
  const creating = new Set<string>();
  let pool: SandboxPool | undefined;
  let closed = false;
  const poolOf = (): SandboxPool => (pool ??= createSandboxPool(options.sandbox ?? {}));

  const host: Host = {
    dir,
    registry,
    spaces: {
      async create(spaceOptions) {
        if (closed) throw new ConfigError('this host was closed; create another with createHost()');
        const name = checkName(spaceOptions.name, spaces.has(spaceOptions.name) || creating.has(spaceOptions.name));
        creating.add(name);
        try {
          const { config, info } = await spaceConfig(dir, spaceOptions, registry, env);
          await mkdir(info.outDir, { recursive: true });
          const space = await (options.openSpace ?? createSpace)({
            config,
            registry,
            sandboxPool: poolOf(),
            sources: (defaults) => sharingConnections(defaults, connections),
            ...pick(spaceOptions, ['approvalHandler', 'onEvent', 'tracer', 'journal', 'engine']),
          });
          spaces.set(name, { space, info });
          return space;
        } finally {
          creating.delete(name);
        }
      },
      get: (name) => spaces.get(name)?.space,
      list: () => [...spaces.values()].map(({ info }) => ({ ...info, selected: [...info.selected] })),
      async remove(name) {
        const entry = spaces.get(name);
        if (entry === undefined) throw new ConfigError(`no space "${name}" on this host${known(spaces.keys())}`);
        spaces.delete(name);
        await entry.space.close();
      },
    },
    mcpConnections: () => ({ open: connections.openCount(), opened: connections.openedCount() }),
    sandboxPids: () => pool?.pids() ?? [],
    async close() {
      if (closed) return;
      closed = true;
      const all = [...spaces.values()];
      spaces.clear();
      await Promise.allSettled(all.map(({ space }) => space.close()));
      await pool?.close();
    },
  };
  return host;
}

/** The registry file's entries (unless `registryFile: false`) with the code's over them. */
async function hostRegistry(dir: string, options: HostOptions, env: Record<string, string | undefined>): Promise<Registry> {
  const file = options.registryFile === false ? undefined : (options.registryFile ?? findRegistryFile(dir));
  const fromFile = file === undefined ? EMPTY_REGISTRY : await loadRegistry({ file: path.resolve(dir, file), env });
  if (options.registry === undefined) return fromFile;
  return mergeRegistries(fromFile, resolveRegistry(options.registry, { root: dir, env }));
}

/** A space's resolved config: its own sections against its root, its build output under the host, its selections copied in. */
async function spaceConfig(
  dir: string,
  options: HostSpaceOptions,
  registry: Registry,
  env: Record<string, string | undefined>,
): Promise<{ config: ResolvedConfig; info: HostSpaceInfo }> {
  const { name, root, approvalHandler: _a, onEvent: _o, tracer: _t, journal: _j, engine: _e, ...raw } = options;
  const spaceDir = path.join(dir, 'spaces', name);
  const outDir = path.join(spaceDir, '.agent-spaces');
  const where = root ?? spaceDir;
  await mkdir(where, { recursive: true });
  let config = resolveConfig({ ...raw, outDir }, { root: where, env });
  const selected = config.capabilities.filter((entry) => hasSelections([entry]));
  if (selected.length > 0) config = selectFromRegistry(config, registry);
  return { config, info: { name, dir: spaceDir, outDir, selected } };
}

/** The space's sources with its MCP source connecting through the host's shared connections. */
function sharingConnections(defaults: readonly CapabilitySource[], connections: SharedMcpConnections): CapabilitySource[] {
  return defaults.map((source) => (source.kind === 'mcp' ? createMcpSource({ connect: connections.connect }) : source));
}

function checkName(name: unknown, taken: boolean): string {
  if (typeof name !== 'string' || !SPACE_NAME.test(name)) {
    throw new ConfigError(
      `a space's name must be 1-63 lowercase letters, digits, - or _, starting with a letter or digit (got ${JSON.stringify(name)})`,
      [{ path: 'name', message: 'not a space name' }],
    );
  }
  if (taken) throw new ConfigError(`a space named "${name}" is already on this host`, [{ path: 'name', message: 'in use' }]);
  return name;
}

function known(names: Iterable<string>): string {
  const all = [...names];
  return all.length === 0 ? ' (it has none)' : ` (it has ${all.map((name) => `"${name}"`).join(', ')})`;
}

function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((key) => value[key] !== undefined).map((key) => [key, value[key]])) as Partial<Pick<T, K>>;
}

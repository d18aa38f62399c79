/**
 * Where `run` makes its isolates, decided before the engine loads: the bin runs `run` in its own
 * process, started without --no-node-snapshot, and starts Node again with the flag only when an
 * isolate would be made in this process by an engine that needs it (isolated-vm in-process; see the
 * engine's `placementProblem`). The config read here is the one the run then uses (read once).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedConfig } from '../../config/index.js';
import type { EngineChoice, EngineName } from '../../runtime/index.js';
import { storeOf } from '../store-option.js';
// Nothing of the library is imported up front: the run's sandbox worker may start before it loads.

/** The config files `loadConfig` looks for (config/load-config.ts CONFIG_FILES; run-placement.test.ts holds them equal). */
export const CONFIG_FILE_NAMES = [
  'agent-spaces.config.ts',
  'agent-spaces.config.mts',
  'agent-spaces.config.js',
  'agent-spaces.config.mjs',
  'agent-spaces.config.json',
];

let loaded: { key: string; config: Promise<ResolvedConfig> } | undefined;

/** The config of a run from `cwd` (and --config), loaded once per process for the same folder and file. */
export function loadRunConfig(cwd: string, file: string | undefined): Promise<ResolvedConfig> {
  const key = `${cwd}\0${file ?? ''}`;
  if (loaded?.key !== key)
    loaded = { key, config: import('../../config/index.js').then(({ loadConfig }) => loadConfig({ cwd, ...(file ? { file } : {}) })) };
  return loaded.config;
}

export interface RunPlacementOptions {
  cwd: string;
  config?: string;
  isolation?: string;
  engine?: string;
  store?: string;
}

/**
 * Whether the run would make an isolate in this process with an engine that needs --no-node-snapshot,
 * which this process lacks. A run in a sandbox worker process (the default) or a store's worker does
 * not; `auto` in-process wants the flag when any engine it may pick needs it. A
 * config or option that is wrong answers false: the run itself reports it, in this process.
 */
export async function needsIsolateFlag(options: RunPlacementOptions): Promise<boolean> {
  let config: ResolvedConfig;
  try {
    config = await loadRunConfig(options.cwd, options.config);
    if (storeOf(options.store, config) !== undefined) return false;
  } catch {
    return false;
  }
  const isolation = options.isolation ?? config.sandbox.isolation ?? 'worker';
  const choice = options.engine ?? config.sandbox.engine ?? process.env['AGENT_SPACES_ENGINE'] ?? 'auto';
  if (isolation === 'worker') return false;
  const { ENGINE_NAMES, placementProblem } = await import('../../runtime/index.js');
  // `auto` may pick any engine: started with the flag, it picks the first that loads, as it would there.
  const candidates = choice === 'auto' ? [...ENGINE_NAMES] : ENGINE_NAMES.filter((name) => name === choice);
  return candidates.some((engine: EngineName) => {
    try {
      return placementProblem(engine, isolation as Parameters<typeof placementProblem>[1]) !== undefined;
    } catch {
      return false;
    }
  });
}

/**
 * Starts the run's sandbox worker process before the config and the library load, when where the run
 * goes is known without them: no config file (none named, none of CONFIG_FILE_NAMES in `cwd`), no
 * store (`--store`, $AGENT_SPACES_STORE), the worker placement and the `auto` engine (no --engine, no
 * $AGENT_SPACES_ENGINE): the defaults. Its Node start and engine load then overlap all of this
 * process's loading (the pool takes it; one no pool takes is killed at exit). Otherwise
 * `needsIsolateFlag` starts it once the config is read.
 */
export async function prestartWithoutConfig(options: RunPlacementOptions): Promise<boolean> {
  if (options.config !== undefined || options.store !== undefined || options.engine !== undefined) return false;
  if ((options.isolation ?? 'worker') !== 'worker') return false;
  if (process.env['AGENT_SPACES_ENGINE'] !== undefined || (process.env['AGENT_SPACES_STORE'] ?? '') !== '') return false;
  if (CONFIG_FILE_NAMES.some((name) => existsSync(path.join(options.cwd, name)))) return false;
  await prestart('auto');
  return true;
}

/**
 * Starts the run's sandbox worker process once the config is read, for the worker placement, with the
 * engine the sandbox will ask for (a second call while one waits does nothing). A run for a store, or
 * a config that does not load, starts none (the run reports the config's problem).
 */
export async function prestartRunWorker(options: RunPlacementOptions): Promise<void> {
  let config: ResolvedConfig;
  try {
    config = await loadRunConfig(options.cwd, options.config);
    if (storeOf(options.store, config) !== undefined) return;
  } catch {
    return;
  }
  if ((options.isolation ?? config.sandbox.isolation ?? 'worker') !== 'worker') return;
  const engine = options.engine ?? config.sandbox.engine ?? process.env['AGENT_SPACES_ENGINE'] ?? 'auto';
  const { ENGINE_CHOICES } = await import('../../runtime/index.js');
  if ((ENGINE_CHOICES as readonly string[]).includes(engine)) await prestart(engine as EngineChoice);
}

async function prestart(engine: EngineChoice): Promise<void> {
  // The one module, not runtime/index.js: that loads the whole runtime, which this start overlaps.
  (await import('../../runtime/worker-pool/prestart.js')).prestartSandboxWorker(engine);
}

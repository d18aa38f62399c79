/**
 * Where `run` makes its isolates, decided before the engine loads: the bin runs `run` in its own
 * process, started without --no-node-snapshot, and starts Node again with the flag only when an
 * isolate would be made in this process by an engine that needs it (isolated-vm in-process; see the
 * engine's `placementProblem`). The config read here is the one the run then uses (read once).
 */
import { loadConfig, type ResolvedConfig } from '../../config/index.js';
import { ENGINE_NAMES, placementProblem, type EngineName } from '../../runtime/index.js';
import { storeOf } from '../store-option.js';

let loaded: { key: string; config: Promise<ResolvedConfig> } | undefined;

/** The config of a run from `cwd` (and --config), loaded once per process for the same folder and file. */
export function loadRunConfig(cwd: string, file: string | undefined): Promise<ResolvedConfig> {
  const key = `${cwd}\0${file ?? ''}`;
  if (loaded?.key !== key) loaded = { key, config: loadConfig({ cwd, ...(file ? { file } : {}) }) };
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
  if (isolation === 'worker') return false;
  const choice = options.engine ?? config.sandbox.engine ?? process.env['AGENT_SPACES_ENGINE'] ?? 'auto';
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

import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { openSpace } from '../../agents/index.js';
import { CONFIG_FILES, readConfigFile } from '../../config/index.js';
import { ENGINE_CHOICES, type EngineChoice } from '../../runtime/index.js';
import { SERVE_MODES, ServeError, serveSpaces, type ServedSpaceOptions, type ServeMode } from '../../server/index.js';
import type { Space, SpaceOptions } from '../../space/index.js';
import { buildForRun } from '../build-report.js';
import { progress, UsageError } from '../output.js';
import { waitForShutdown } from '../wait-for-shutdown.js';

export interface ServeSpacesCommandOptions {
  cwd: string;
  /** `[name=]dir,…`: each folder one space, with its own config file (or none: the defaults). */
  spaces: string;
  http: number;
  host?: string;
  token?: string;
  engine?: string;
  mode?: string;
  savePrograms?: boolean;
}

/** `[name=]dir` → a space name: the one given, else the folder's name. */
const SPACE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * `agent-spaces serve --http <port> --spaces a,b`: the folders as spaces of one host (the user-level
 * registry, one sandbox pool, shared MCP connections), each at `/spaces/<name>/mcp`, until interrupted.
 */
export async function serveSpacesCommand(options: ServeSpacesCommandOptions): Promise<number> {
  if (options.mode !== undefined && !(SERVE_MODES as readonly string[]).includes(options.mode)) {
    throw new UsageError(`--mode takes "code", "invoke" or "both" (got "${options.mode}")`);
  }
  if (options.engine !== undefined && !(ENGINE_CHOICES as readonly string[]).includes(options.engine)) {
    throw new UsageError(`--engine takes ${ENGINE_CHOICES.join(', ')} (got "${options.engine}")`);
  }
  const folders = spaceFolders(options.spaces, options.cwd);
  const spaces: ServedSpaceOptions[] = [];
  for (const { name, dir } of folders) spaces.push({ ...(await folderConfig(dir)), name, root: dir });
  const token = options.token ?? process.env.AGENT_SPACES_SERVE_TOKEN;
  const running = await serveSpaces({
    http: { port: options.http, ...(options.host ? { host: options.host } : {}), ...(token ? { token } : {}) },
    spaces,
    host: { openSpace: buildingFirst, ...(options.engine ? { sandbox: { engine: options.engine as EngineChoice } } : {}) },
    ...(options.mode ? { mode: options.mode as ServeMode } : {}),
    ...(options.savePrograms === true ? { savePrograms: true } : {}),
    log: progress,
  }).catch((error: unknown) => {
    if (error instanceof ServeError && error.code !== 'SERVE_BIND_FAILED') throw new UsageError(error.message);
    throw error;
  });
  await waitForShutdown(false);
  await running.close();
  return 0;
}

/** The `--spaces` list (serve and studio): each `[name=]dir` an existing folder, names distinct and valid. */
export function spaceFolders(list: string, cwd: string): { name: string; dir: string }[] {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new UsageError('--spaces takes folders, comma-separated ([name=]dir,…)');
  const seen = new Map<string, string>();
  return entries.map((entry) => {
    const equals = entry.indexOf('=');
    const dir = path.resolve(cwd, equals === -1 ? entry : entry.slice(equals + 1));
    const name = equals === -1 ? path.basename(dir) : entry.slice(0, equals);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--spaces: "${entry}": no folder at ${dir}`);
    if (!SPACE_NAME.test(name)) {
      throw new UsageError(
        `--spaces: "${entry}": "${name}" is not a space name (1-63 lowercase letters, digits, - or _, starting with a letter or digit); name it: <name>=${entry.slice(equals + 1)}`,
      );
    }
    const other = seen.get(name);
    if (other !== undefined) throw new UsageError(`--spaces: "${entry}" and "${other}" are both named "${name}"; name one: <name>=<dir>`);
    seen.set(name, entry);
    return { name, dir };
  });
}

/** A folder's config as written (its relative paths resolve against the folder); none: the defaults. */
async function folderConfig(dir: string): Promise<Omit<ServedSpaceOptions, 'name'>> {
  const file = CONFIG_FILES.map((name) => path.join(dir, name)).find((candidate) => existsSync(candidate));
  if (file === undefined) return {};
  const raw = await readConfigFile(file);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new UsageError(`config file ${file} must export an object (defineConfig({ ... }))`);
  }
  // The host puts each space's build output under its own folder; the rest is the space's config.
  const { outDir: _outDir, ...config } = raw as Record<string, unknown>;
  return config as Omit<ServedSpaceOptions, 'name'>;
}

/** Opens a space as the CLI does (the config's agents included) and builds what is out of date, saying so. */
async function buildingFirst(spaceOptions: SpaceOptions): Promise<Space> {
  const space = await openSpace(spaceOptions);
  await buildForRun(space).catch(async (error: unknown) => {
    await space.close();
    throw error;
  });
  return space;
}

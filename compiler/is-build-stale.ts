import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedConfig } from '../config/index.js';
import { BUILD_LAYOUT, inputFilesOf, type CapabilitySource } from '../core/index.js';
import { sandboxModulesStale } from './sandbox-modules/index.js';

/**
 * Whether the build output is missing, older than the config file or any local file `sources` read
 * (`CapabilitySource.inputFiles`: tool files, OpenAPI specs), or was built from another set of those files (one deleted, renamed or
 * added since: its module would otherwise stay built, and a deleted one fails every run when the space
 * loads its host side). MCP servers are checked at call time instead (a changed tool list is reported
 * then). A build that did not record its inputs (before they were recorded) is judged by times alone.
 * The sandbox modules (`sandbox.modules`) are stale when their list or an installed version changed.
 */
export async function isBuildStale(config: ResolvedConfig, sources: readonly CapabilitySource<ResolvedConfig>[]): Promise<boolean> {
  const built = await mtime(path.join(config.outDir, BUILD_LAYOUT.manifestFile));
  if (built === undefined) return true;
  const files = await inputFilesOf(sources, config);
  const inputs = config.file ? [config.file, ...files] : files;
  const times = await Promise.all(inputs.map(mtime));
  if (times.some((time) => time !== undefined && time > built)) return true;
  if (await sandboxModulesStale(config)) return true;
  const recorded = await recordedInputs(config.outDir);
  if (recorded === undefined) return false;
  const current = relativeInputs(config, files);
  return current.length !== recorded.length || current.some((file, index) => file !== recorded[index]);
}

/** What `BUILD_LAYOUT.inputsFile` holds: the local files a build read, relative to the config's root, sorted. */
export interface BuildInputs {
  version: 1;
  files: string[];
}

/** The inputs of a build of `config` now, as the build records them. */
export async function buildInputs(config: ResolvedConfig, sources: readonly CapabilitySource<ResolvedConfig>[]): Promise<BuildInputs> {
  return { version: 1, files: relativeInputs(config, await inputFilesOf(sources, config)) };
}

function relativeInputs(config: ResolvedConfig, files: readonly string[]): string[] {
  return [...new Set(files.map((file) => path.relative(config.root, file).split(path.sep).join('/')))].sort();
}

/** The input files the last build recorded, or `undefined` when it recorded none (or they are unreadable). */
async function recordedInputs(outDir: string): Promise<string[] | undefined> {
  try {
    const data = JSON.parse(await readFile(path.join(outDir, BUILD_LAYOUT.inputsFile), 'utf8')) as Partial<BuildInputs>;
    return data.version === 1 && Array.isArray(data.files) && data.files.every((file) => typeof file === 'string') ? data.files : undefined;
  } catch {
    return undefined;
  }
}

async function mtime(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
}

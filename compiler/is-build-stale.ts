import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedConfig } from '../config/index.js';
import { BUILD_LAYOUT } from '../core/index.js';
import { sourceInputFiles } from '../sources/index.js';

/**
 * Whether the build output is missing or older than the config file or any local file its sources
 * read (tool files, OpenAPI specs); MCP servers are checked at call time instead (a changed tool list
 * is reported then).
 */
export async function isBuildStale(config: ResolvedConfig): Promise<boolean> {
  const built = await mtime(path.join(config.outDir, BUILD_LAYOUT.manifestFile));
  if (built === undefined) return true;
  const files = await sourceInputFiles(config);
  const sources = config.file ? [config.file, ...files] : files;
  const times = await Promise.all(sources.map(mtime));
  return times.some((time) => time !== undefined && time > built);
}

async function mtime(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
}

import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { BUILD_LAYOUT, isJsonSchemaObject, writeFileAtomic } from '../core/index.js';
import type { StoredManifest } from './build-capabilities.js';

export interface OutputFile {
  /** Relative to outDir, with `/` separators. */
  path: string;
  content: string;
}

/**
 * Writes the build output: only files whose bytes changed, each through a temporary file and a
 * rename (a reader never sees half a file), module folders that no longer exist removed, and the
 * manifest last, so an interrupted write leaves the previous manifest describing files that exist.
 */
export async function writeBuildOutput(outDir: string, files: OutputFile[]): Promise<{ written: string[]; removed: string[] }> {
  await mkdir(outDir, { recursive: true });
  const manifest = files.filter((file) => file.path === BUILD_LAYOUT.manifestFile);
  const rest = files.filter((file) => file.path !== BUILD_LAYOUT.manifestFile);
  const written: string[] = [];
  for (const file of [...rest, ...manifest]) {
    const target = path.join(outDir, file.path);
    if (await sameContent(target, file.content)) continue;
    await writeFileAtomic(target, file.content);
    written.push(file.path);
  }
  const keepModules = new Set(
    files
      .map((file) => file.path.split('/'))
      .filter((parts) => parts[0] === BUILD_LAYOUT.capabilitiesDir && parts.length > 2)
      .map((parts) => parts[1]),
  );
  const removed: string[] = [];
  const capabilitiesDir = path.join(outDir, BUILD_LAYOUT.capabilitiesDir);
  if (existsSync(capabilitiesDir)) {
    for (const entry of await readdir(capabilitiesDir, { withFileTypes: true })) {
      if (entry.isDirectory() && !keepModules.has(entry.name)) {
        await rm(path.join(capabilitiesDir, entry.name), { recursive: true, force: true });
        removed.push(`${BUILD_LAYOUT.capabilitiesDir}/${entry.name}`);
      }
    }
  }
  return { written, removed };
}

async function sameContent(file: string, content: string): Promise<boolean> {
  try {
    return (await readFile(file, 'utf8')) === content;
  } catch {
    return false;
  }
}

/** The manifest of the previous build, or undefined when there is none (or it is unreadable). */
export async function readPreviousBuild(outDir: string): Promise<StoredManifest | undefined> {
  try {
    const data = JSON.parse(await readFile(path.join(outDir, BUILD_LAYOUT.manifestFile), 'utf8')) as unknown;
    if (isJsonSchemaObject(data) && data.version === 1 && Array.isArray(data.capabilities) && isJsonSchemaObject(data.hashes)) {
      return data as unknown as StoredManifest;
    }
  } catch {
    // No previous build, or one we cannot read: build from scratch.
  }
  return undefined;
}

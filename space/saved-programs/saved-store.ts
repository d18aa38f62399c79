/**
 * Saved programs on disk, under the space's folder: `saved/<group>/<name>.ts` (the source as saved)
 * and `saved/<group>/<name>.json` (what it is: signature, schemas, what it calls, where it came from).
 * Each file is written atomically, the source first; the metadata carries the source's SHA-256, so a
 * source changed by hand (or a save cut short between the two files) is reported, never run unchecked.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic, type JsonSchema } from '../../core/index.js';
import type { ProgramSignature } from './program-signature.js';
import { formatSavedName, parseSavedName, type SavedName } from './saved-names.js';

/** The folder of a space's saved programs: `saved/` beside its config. */
export function savedDirectory(root: string): string {
  return path.join(root, 'saved');
}

/** Where a saved program came from. */
export interface SavedOrigin {
  /** When it was saved (ISO 8601). */
  savedAt: string;
  /** Who saved it: `cli`, `serve (save_program)`, `studio`, or a caller's own label. */
  savedBy: string;
  /** The run that produced it, when known (an execute_code run id, a planner task's run). */
  runId?: string;
  /** The file it was saved from (the CLI). */
  file?: string;
}

/** `saved/<group>/<name>.json`. */
export interface SavedProgramMeta extends SavedName {
  version: 1;
  description?: string;
  signature: ProgramSignature;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  origin: SavedOrigin;
  /** SHA-256 (hex) of the source file's bytes. */
  sourceSha256: string;
}

export interface SavedProgram {
  meta: SavedProgramMeta;
  source: string;
  /** The source file's path. */
  path: string;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function filesOf(directory: string, saved: SavedName): { source: string; meta: string } {
  const base = path.join(directory, saved.group, saved.name);
  return { source: `${base}.ts`, meta: `${base}.json` };
}

/** Writes one saved program (source, then metadata); resolves to whether it replaced one of that name. */
export async function writeSavedProgram(
  directory: string,
  meta: SavedProgramMeta,
  source: string,
): Promise<{ replaced: boolean; path: string }> {
  const files = filesOf(directory, meta);
  const replaced = await stat(files.meta).then(
    () => true,
    () => false,
  );
  await writeFileAtomic(files.source, source);
  await writeFileAtomic(files.meta, `${JSON.stringify(meta, null, 2)}\n`);
  return { replaced, path: files.source };
}

/** One saved program, or a sentence saying why it cannot be read. */
export async function readSavedProgram(directory: string, saved: SavedName): Promise<SavedProgram> {
  const files = filesOf(directory, saved);
  const label = formatSavedName(saved);
  let meta: SavedProgramMeta;
  try {
    meta = JSON.parse(await readFile(files.meta, 'utf8')) as SavedProgramMeta;
  } catch (error) {
    throw new Error(`saved program ${label}: cannot read ${files.meta}: ${(error as Error).message}`);
  }
  if (meta.version !== 1 || meta.group !== saved.group || meta.name !== saved.name || typeof meta.signature?.functionName !== 'string') {
    throw new Error(`saved program ${label}: ${files.meta} is not the metadata of ${label}; save the program again`);
  }
  const source = await readFile(files.source, 'utf8').catch((error: Error) => {
    throw new Error(`saved program ${label}: cannot read ${files.source}: ${error.message}`);
  });
  if (sha256(source) !== meta.sourceSha256) {
    throw new Error(
      `saved program ${label}: ${files.source} changed since it was saved (its SHA-256 differs); save it again to type-check it`,
    );
  }
  return { meta, source, path: files.source };
}

/** The names of the saved programs under `directory` (each `<group>/<name>.json`), sorted. */
export async function listSavedNames(directory: string): Promise<{ names: SavedName[]; failures: { file: string; message: string }[] }> {
  const names: SavedName[] = [];
  const failures: { file: string; message: string }[] = [];
  const groups = await readdir(directory, { withFileTypes: true }).catch(() => []);
  for (const group of groups.filter((entry) => entry.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const entries = await readdir(path.join(directory, group.name));
    for (const file of entries.filter((entry) => entry.endsWith('.json') && !entry.startsWith('.')).sort()) {
      try {
        names.push(parseSavedName(`${group.name}.${file.slice(0, -'.json'.length)}`));
      } catch (error) {
        failures.push({ file: path.join(directory, group.name, file), message: (error as Error).message });
      }
    }
  }
  return { names, failures };
}

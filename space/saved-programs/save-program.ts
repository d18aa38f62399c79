import type { Space } from '../create-space.js';
import { readProgramSignature, SAVED_FORM, SavedProgramError } from './program-signature.js';
import { formatSavedName, parseSavedName, savedModule } from './saved-names.js';
import { savedDirectory, sha256, writeSavedProgram, type SavedOrigin, type SavedProgramMeta } from './saved-store.js';
import { signatureSchemas } from './signature-schemas.js';

/** The largest program that may be saved (it is read again on every call). */
export const MAX_SAVED_SOURCE_BYTES = 256 * 1024;

export interface SaveProgramOptions {
  /** `<group>.<function>`: `reports.weeklySummary` becomes `weeklySummary` of `@capabilities/saved-reports`. */
  as: string;
  /** What the function does, for search and the declarations (default: none). */
  description?: string;
  /** Who saves it and from what (`savedAt` is now). */
  origin: Omit<SavedOrigin, 'savedAt'>;
  /** A name of the program for messages (its file; default `program.ts`). */
  file?: string;
}

export interface SavedProgramReport {
  /** `reports.weeklySummary`. */
  name: string;
  module: string;
  function: string;
  /** Whether a saved program of that name was replaced. */
  replaced: boolean;
  /** The saved source file. */
  path: string;
  /** What it calls (`<module>.<function>`, found in its imports). */
  calls: string[];
  /** One sentence for a person: what was saved where, and how to call it. */
  message: string;
}

/**
 * Saves a program that worked as a function of `@capabilities/saved-<group>`: checks its form (`export
 * default async function name(input: T): Promise<R>`), type-checks it against the space's current
 * capabilities, derives its schemas from its own types, writes `saved/<group>/<name>.ts` and `.json`,
 * and reloads the space so later runs and calls can use it. Throws a {@link SavedProgramError} (the
 * name, the form, a type error, a type that is not JSON data) before writing anything.
 */
export async function saveProgram(space: Space, code: string, options: SaveProgramOptions): Promise<SavedProgramReport> {
  const file = options.file ?? 'program.ts';
  let saved;
  try {
    saved = parseSavedName(options.as);
  } catch (error) {
    throw new SavedProgramError((error as Error).message);
  }
  if (Buffer.byteLength(code) > MAX_SAVED_SOURCE_BYTES) {
    throw new SavedProgramError(`${file} is ${Buffer.byteLength(code)} bytes; a saved program may have at most ${MAX_SAVED_SOURCE_BYTES}`);
  }
  const signature = await readProgramSignature(code, file);
  const diagnostics = await space.check(code);
  if (diagnostics.length > 0) {
    const shown = diagnostics.slice(0, 10).map((d) => `  ${file}:${d.line}:${d.column} TS${d.code}: ${d.message}`);
    const more = diagnostics.length > shown.length ? [`  … and ${diagnostics.length - shown.length} more`] : [];
    throw new SavedProgramError(
      `${file} does not type-check against the current capabilities; nothing was saved:\n${[...shown, ...more].join('\n')}`,
    );
  }
  const schemas = await signatureSchemas(code, signature, space.config.outDir, file);
  const meta: SavedProgramMeta = {
    version: 1,
    ...saved,
    ...(options.description ? { description: options.description } : {}),
    signature,
    ...schemas,
    origin: { savedAt: new Date().toISOString(), ...options.origin },
    sourceSha256: sha256(code),
  };
  const written = await writeSavedProgram(savedDirectory(space.config.root), meta, code);
  await space.reload();
  const name = formatSavedName(saved);
  const module = savedModule(saved.group);
  return {
    name,
    module,
    function: saved.name,
    replaced: written.replaced,
    path: written.path,
    calls: signature.calls,
    message: `${written.replaced ? 'replaced' : 'saved'} ${name}: import { ${saved.name} } from '@capabilities/${module}' (direct call: ${module}.${saved.name})`,
  };
}

export { SAVED_FORM, SavedProgramError };

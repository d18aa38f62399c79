/**
 * Finds the build output's proxy modules for `@capabilities/*` specifiers. Sources are cached per
 * process by path and modification time, so a rebuilt capability is picked up by the next run.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { BUILD_LAYOUT, CAPABILITY_PREFIX } from '../../core/manifest.js';

const MODULE_NAME = /^[a-z0-9][a-z0-9_.-]*$/;

/** A module specifier the sandbox will not load; `code` says why. */
export class ModuleResolutionError extends Error {
  override readonly name = 'ModuleResolutionError';
  constructor(readonly code: 'IMPORT_REFUSED' | 'MODULE_NOT_FOUND', message: string) {
    super(message);
  }
}

export interface ResolvedModule {
  path: string;
  source: string;
}

const sources = new Map<string, { mtimeMs: number; size: number; source: string }>();

/**
 * Resolves `specifier` imported by the module at `referrerPath` (undefined: the program). The
 * program may import `@capabilities/<name>`; a capability module may also import files beside it.
 */
export function resolveCapabilityModule(outDir: string, specifier: string, referrerPath: string | undefined): ResolvedModule {
  const capabilitiesDir = path.resolve(outDir, BUILD_LAYOUT.capabilitiesDir);
  let file: string;
  if (specifier.startsWith(CAPABILITY_PREFIX)) {
    const name = specifier.slice(CAPABILITY_PREFIX.length);
    if (!MODULE_NAME.test(name)) throw new ModuleResolutionError('IMPORT_REFUSED', `import of "${specifier}" refused: not a capability module name`);
    file = path.join(capabilitiesDir, name, BUILD_LAYOUT.moduleFiles.proxy);
  } else if (referrerPath !== undefined && (specifier.startsWith('./') || specifier.startsWith('../'))) {
    file = path.resolve(path.dirname(referrerPath), specifier);
    if (!file.startsWith(capabilitiesDir + path.sep) || !file.endsWith('.js')) {
      throw new ModuleResolutionError('IMPORT_REFUSED', `import of "${specifier}" from ${path.relative(capabilitiesDir, referrerPath)} refused: capability modules may only import .js files of the build output`);
    }
  } else {
    throw new ModuleResolutionError('IMPORT_REFUSED', `import of "${specifier}" refused: programs may only import @capabilities/<name> modules of the build`);
  }
  let stat;
  try {
    stat = statSync(file);
  } catch {
    // No host path and no list of modules: a run narrowed to some functions must not learn the others.
    throw new ModuleResolutionError('MODULE_NOT_FOUND', `module "${specifier}" is not in the build: fix the import (search_tools and capabilities.d.ts name the modules), or rebuild the capabilities`);
  }
  const cached = sources.get(file);
  if (cached !== undefined && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return { path: file, source: cached.source };
  const source = readFileSync(file, 'utf8');
  sources.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, source });
  return { path: file, source };
}

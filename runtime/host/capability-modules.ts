/**
 * Finds the build output's proxy modules for `@capabilities/*` specifiers, and the bundles of the npm
 * modules the build lists (`sandbox.modules`, docs/MODULES.md) for bare ones. Sources are cached per
 * process by path and modification time, so a rebuilt capability is picked up by the next run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { closestKey } from '../../core/edit-distance.js';
import { BUILD_LAYOUT, CAPABILITY_PREFIX } from '../../core/manifest.js';
import { parseSandboxModules, type SandboxModulesManifest } from '../../core/sandbox-modules.js';

const MODULE_NAME = /^[a-z0-9][a-z0-9_.-]*$/;

/** A module specifier the sandbox will not load; `code` says why. */
export class ModuleResolutionError extends Error {
  override readonly name = 'ModuleResolutionError';
  constructor(
    readonly code: 'IMPORT_REFUSED' | 'MODULE_NOT_FOUND',
    message: string,
  ) {
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
    if (!MODULE_NAME.test(name))
      throw new ModuleResolutionError('IMPORT_REFUSED', `import of "${specifier}" refused: not a capability module name`);
    file = path.join(capabilitiesDir, name, BUILD_LAYOUT.moduleFiles.proxy);
  } else if (referrerPath !== undefined && (specifier.startsWith('./') || specifier.startsWith('../'))) {
    file = path.resolve(path.dirname(referrerPath), specifier);
    if (!file.startsWith(capabilitiesDir + path.sep) || !file.endsWith('.js')) {
      throw new ModuleResolutionError(
        'IMPORT_REFUSED',
        `import of "${specifier}" from ${path.relative(capabilitiesDir, referrerPath)} refused: capability modules may only import .js files of the build output`,
      );
    }
  } else {
    file = sandboxModuleFile(outDir, specifier);
  }
  let stat;
  try {
    stat = statSync(file);
  } catch {
    // No host path and no list of modules: a run narrowed to some functions must not learn the others.
    // The sandbox's front end adds a "did you mean" among the modules the run may see (withModuleHint).
    throw new ModuleResolutionError(
      'MODULE_NOT_FOUND',
      `${notInBuild(specifier)}: fix the import (search_tools and capabilities.d.ts name the modules), or rebuild the capabilities`,
    );
  }
  const cached = sources.get(file);
  if (cached !== undefined && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return { path: file, source: cached.source };
  const source = readFileSync(file, 'utf8');
  sources.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, source });
  return { path: file, source };
}

const sandboxModules = new Map<string, { mtimeMs: number; size: number; manifest: SandboxModulesManifest | undefined }>();

/** The sandbox modules (`sandbox.modules`) of the build in `outDir`, read again when the build rewrote their list. */
export function readSandboxModuleList(outDir: string): SandboxModulesManifest | undefined {
  const file = path.resolve(outDir, BUILD_LAYOUT.sandboxModulesFile);
  const stat = statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  const cached = sandboxModules.get(file);
  if (cached !== undefined && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.manifest;
  let manifest: SandboxModulesManifest | undefined;
  try {
    manifest = parseSandboxModules(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    manifest = undefined;
  }
  sandboxModules.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, manifest });
  return manifest;
}

/** The bundle of a bare specifier the build lists in `sandbox.modules`; any other is refused, naming those it lists. */
function sandboxModuleFile(outDir: string, specifier: string): string {
  const manifest = readSandboxModuleList(outDir);
  const entry = manifest !== undefined && Object.hasOwn(manifest.modules, specifier) ? manifest.modules[specifier] : undefined;
  const modulesDir = path.resolve(outDir, BUILD_LAYOUT.sandboxModulesDir);
  const file = entry === undefined ? undefined : path.resolve(modulesDir, entry.file);
  if (file !== undefined && file.startsWith(modulesDir + path.sep) && file.endsWith('.js')) return file;
  const listed = Object.keys(manifest?.modules ?? {});
  const allowed =
    listed.length > 0
      ? `, or the npm modules this build bundled: ${listed.map((name) => `"${name}"`).join(', ')}`
      : ' (this build bundles no npm modules)';
  throw new ModuleResolutionError(
    'IMPORT_REFUSED',
    `import of "${specifier}" refused: programs may only import @capabilities/<name> modules of the build${allowed}; an npm package must be listed in sandbox.modules in the config (and the capabilities rebuilt)`,
  );
}

function notInBuild(specifier: string): string {
  return `module "${specifier}" is not in the build`;
}

/** The specifier a MODULE_NOT_FOUND message names, if it is one of ours. */
const NOT_IN_BUILD = /^module "(@capabilities\/[^"]*)" is not in the build/;

/** Every module of the build in `outDir` (the folders that hold a proxy), sorted; none when there is no build. */
export function listCapabilityModules(outDir: string): string[] {
  const capabilitiesDir = path.resolve(outDir, BUILD_LAYOUT.capabilitiesDir);
  try {
    return readdirSync(capabilitiesDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && MODULE_NAME.test(entry.name))
      .filter(
        (entry) =>
          statSync(path.join(capabilitiesDir, entry.name, BUILD_LAYOUT.moduleFiles.proxy), { throwIfNoEntry: false })?.isFile() === true,
      )
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * The `@capabilities/<name>` among `modules` that a mistyped specifier most likely meant: the same
 * letters and digits whatever the case and separators (`trainSchedule` for `train-schedule`), or a
 * few edits away (`mcp-everythin`). Only `modules` are ever named, so a caller passes what the run may see.
 */
export function suggestCapabilityModule(specifier: string, modules: readonly string[]): string | undefined {
  const wanted = specifier.startsWith(CAPABILITY_PREFIX) ? specifier.slice(CAPABILITY_PREFIX.length) : specifier;
  const module = closestKey(
    wanted,
    modules.filter((name) => name !== wanted),
  );
  return module === undefined ? undefined : `${CAPABILITY_PREFIX}${module}`;
}

/**
 * Adds "did you mean" to a message that names a missing capability module: the sandbox's own
 * MODULE_NOT_FOUND, or TypeScript's "Cannot find module" (TS2307). `modules` are those the run may see.
 */
export function withModuleHint(message: string, modules: readonly string[]): string {
  const specifier = NOT_IN_BUILD.exec(message)?.[1] ?? /^Cannot find module '(@capabilities\/[^']*)'/.exec(message)?.[1];
  if (specifier === undefined) return message;
  const suggestion = suggestCapabilityModule(specifier, modules);
  if (suggestion === undefined) return message;
  return NOT_IN_BUILD.test(message)
    ? message.replace(NOT_IN_BUILD, (head) => `${head} (did you mean "${suggestion}"?)`)
    : `${message} Did you mean '${suggestion}'?`;
}

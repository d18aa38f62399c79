/**
 * Finding the npm packages of `sandbox.modules` as Node would from the config's folder: the package a
 * specifier names, its folder in the nearest `node_modules`, its version and its lockfile entry.
 */
import { builtinModules } from 'node:module';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CompileError } from '../../core/index.js';

/** An npm package name (`zod`, `@scope/name`) with an optional subpath (`lodash-es/chunk`). */
const SPECIFIER = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(?:\/[A-Za-z0-9._~@+-]+)*$/;

const NODE_BUILTINS = new Set(builtinModules.map((name) => name.replace(/^node:/, '')));

/** Whether `specifier` names one of Node's own modules (`fs`, `node:fs`, `fs/promises`, `node:test`). */
export function isNodeBuiltin(specifier: string): boolean {
  if (specifier.startsWith('node:')) return true;
  return NODE_BUILTINS.has(specifier) || NODE_BUILTINS.has(specifier.split('/')[0] ?? '');
}

/** The package a specifier belongs to: `lodash-es/chunk` → `lodash-es`, `@a/b/c` → `@a/b`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Checks the configured list: npm specifiers, no Node built-ins, no repeats. */
export function checkModuleList(modules: readonly string[]): void {
  const seen = new Set<string>();
  for (const [index, specifier] of modules.entries()) {
    const at = `sandbox.modules[${index}] ("${specifier}")`;
    if (isNodeBuiltin(specifier)) {
      throw new CompileError(
        'SANDBOX_MODULE_REFUSED',
        `${at} is a Node built-in: the sandbox has no ${specifier}, and no module brings it in`,
      );
    }
    if (!SPECIFIER.test(specifier)) {
      throw new CompileError(
        'SANDBOX_MODULE_INVALID',
        `${at} is not an npm package name (e.g. "date-fns", "@scope/name", "lodash-es/chunk"); relative paths and URLs are not modules`,
      );
    }
    if (specifier.startsWith('@capabilities/')) {
      throw new CompileError('SANDBOX_MODULE_INVALID', `${at}: @capabilities/* are the build's own modules, not npm packages`);
    }
    if (seen.has(specifier)) throw new CompileError('SANDBOX_MODULE_INVALID', `${at} is listed twice`);
    seen.add(specifier);
  }
}

export interface InstalledPackage {
  name: string;
  dir: string;
  version: string;
  manifest: Record<string, unknown>;
}

/** The package `name` as Node finds it from `fromDir` (the nearest `node_modules/<name>` upwards), or undefined. */
export async function findPackage(name: string, fromDir: string): Promise<InstalledPackage | undefined> {
  for (let dir = path.resolve(fromDir); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', ...name.split('/'));
    const manifest = await readJson(path.join(candidate, 'package.json'));
    if (manifest !== undefined) {
      return { name, dir: candidate, version: typeof manifest.version === 'string' ? manifest.version : '0.0.0', manifest };
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The installed package of a listed specifier, or a build error that says how to install it. */
export async function requirePackage(specifier: string, root: string): Promise<InstalledPackage> {
  const name = packageNameOf(specifier);
  const found = await findPackage(name, root);
  if (found === undefined) {
    throw new CompileError(
      'SANDBOX_MODULE_NOT_INSTALLED',
      `sandbox.modules lists "${specifier}", but the package ${name} is not installed in ${root} (or a folder above it): run \`npm install ${name}\` there`,
    );
  }
  return found;
}

/** `name@version`, and the lockfile's integrity of the installed copy when the space has a package-lock.json. */
export async function packageFingerprint(pkg: InstalledPackage, root: string): Promise<string> {
  const lock = await readJson(path.join(root, 'package-lock.json'));
  const packages = lock?.packages as Record<string, { integrity?: unknown }> | undefined;
  const key = path.relative(root, pkg.dir).split(path.sep).join('/');
  const integrity = packages?.[key]?.integrity;
  return typeof integrity === 'string' ? `${pkg.version} ${integrity}` : pkg.version;
}

export async function readJson(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

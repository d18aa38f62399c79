import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SdkConfig } from '../../config/index.js';
import { CompileError } from '../../core/index.js';

const SCRIPT_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs', '.cjs'];

/**
 * The file the host imports for an SDK: a local module's file (a folder's `index.ts`/`index.js`, a
 * path without its extension) or an installed package's entry for `import` (its `exports["."]`
 * `import`/`node`/`default` condition, else `module`/`main`), found from the config's folder upwards.
 *
 * @throws CompileError naming what was looked for, and where
 */
export function resolveSdkEntry(name: string, sdk: SdkConfig, root: string): string {
  if (sdk.module !== undefined) {
    const base = path.resolve(root, sdk.module);
    const found = fileOf(base);
    if (found === undefined)
      throw new CompileError('INVALID_SDK', `sdk:${name}: no module at ${base} (a file, or a folder with index.ts or index.js)`);
    return found;
  }
  const packageName = sdk.package ?? '';
  for (let folder = root; ; folder = path.dirname(folder)) {
    const directory = path.join(folder, 'node_modules', packageName);
    if (existsSync(path.join(directory, 'package.json'))) return packageEntry(name, directory);
    if (path.dirname(folder) === folder) break;
  }
  throw new CompileError(
    'INVALID_SDK',
    `sdk:${name}: package "${packageName}" is not installed in ${root} or a folder above it (npm install ${packageName})`,
  );
}

function fileOf(base: string): string | undefined {
  if (existsSync(base) && statSync(base).isFile()) return base;
  for (const extension of SCRIPT_EXTENSIONS) if (existsSync(base + extension)) return base + extension;
  if (existsSync(base) && statSync(base).isDirectory()) {
    for (const extension of SCRIPT_EXTENSIONS) {
      const index = path.join(base, `index${extension}`);
      if (existsSync(index)) return index;
    }
  }
  return undefined;
}

interface PackageJson {
  exports?: unknown;
  module?: string;
  main?: string;
}

function packageEntry(name: string, directory: string): string {
  const manifest = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as PackageJson;
  const target = exportTarget(manifest.exports) ?? manifest.module ?? manifest.main ?? 'index.js';
  const file = fileOf(path.resolve(directory, target));
  if (file === undefined) throw new CompileError('INVALID_SDK', `sdk:${name}: the entry ${target} of ${directory} does not exist`);
  return file;
}

/** The file `exports["."]` names for `import` on Node. */
function exportTarget(exports: unknown): string | undefined {
  if (typeof exports === 'string') return exports;
  if (typeof exports !== 'object' || exports === null || Array.isArray(exports)) return undefined;
  const map = exports as Record<string, unknown>;
  const dot = Object.keys(map).some((key) => key.startsWith('.')) ? map['.'] : map;
  return conditionTarget(dot);
}

function conditionTarget(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(conditionTarget).find((target) => target !== undefined);
  if (typeof value !== 'object' || value === null) return undefined;
  const conditions = value as Record<string, unknown>;
  for (const condition of ['import', 'node', 'default']) {
    const target = conditionTarget(conditions[condition]);
    if (target !== undefined) return target;
  }
  return undefined;
}

/**
 * Copies the declarations of the sandbox modules into the build output, as a `node_modules` tree the
 * type checker resolves programs' imports in: each package's own `.d.ts` files and `package.json`
 * (its `types` and `exports` say which file a specifier means), or its `@types/*` package when it has
 * none, and the same for the packages those declarations depend on.
 */
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { CompileError } from '../../core/index.js';
import { findPackage, type InstalledPackage } from './packages.js';

const DECLARATION_FILE = /\.d\.(?:ts|mts|cts)$/;
/** Bounds a copy: a package with more declaration files than this is not one the sandbox should carry. */
const MAX_FILES = 20_000;
/** Folders never searched for declarations. */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);

/** Copies the declarations of `packages` (and of their typed dependencies) under `<targetDir>/node_modules`; returns the packages copied. */
export async function copyDeclarations(packages: readonly InstalledPackage[], targetDir: string): Promise<string[]> {
  const copied = new Map<string, InstalledPackage>();
  const queue: InstalledPackage[] = [];
  const enqueue = async (pkg: InstalledPackage): Promise<void> => {
    const typed = (await hasDeclarations(pkg)) ? pkg : await findPackage(typesPackageName(pkg.name), pkg.dir);
    if (typed === undefined || copied.has(typed.name)) return;
    copied.set(typed.name, typed);
    queue.push(typed);
  };
  for (const pkg of packages) await enqueue(pkg);
  let files = 0;
  while (queue.length > 0) {
    const pkg = queue.shift() as InstalledPackage;
    files += await copyPackage(pkg, path.join(targetDir, 'node_modules', ...pkg.name.split('/')), MAX_FILES - files);
    const dependencies = { ...asRecord(pkg.manifest.dependencies), ...asRecord(pkg.manifest.peerDependencies) };
    for (const name of Object.keys(dependencies).sort()) {
      const dependency = await findPackage(name, pkg.dir);
      if (dependency !== undefined) await enqueue(dependency);
    }
  }
  return [...copied.keys()].sort();
}

/** `@types/<name>` for `name` (`@scope/name` → `@types/scope__name`). */
function typesPackageName(name: string): string {
  return `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
}

async function hasDeclarations(pkg: InstalledPackage): Promise<boolean> {
  if (typeof pkg.manifest.types === 'string' || typeof pkg.manifest.typings === 'string') return true;
  if (JSON.stringify(pkg.manifest.exports ?? null).includes('"types"')) return true;
  const entries = await readdir(pkg.dir).catch(() => [] as string[]);
  return entries.some((name) => DECLARATION_FILE.test(name));
}

/** Copies `package.json` and every declaration file of the package; returns how many files. */
async function copyPackage(pkg: InstalledPackage, target: string, budget: number): Promise<number> {
  await mkdir(target, { recursive: true });
  await copyFile(path.join(pkg.dir, 'package.json'), path.join(target, 'package.json'));
  let count = 1;
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(pkg.dir, relative), { withFileTypes: true })) {
      const file = path.join(relative, entry.name);
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) await walk(file);
      else if (entry.isFile() && DECLARATION_FILE.test(entry.name)) {
        if (++count > budget) {
          throw new CompileError(
            'SANDBOX_MODULE_TOO_LARGE',
            `the declarations of the sandbox modules pass ${MAX_FILES} files (at ${pkg.name}); list fewer or smaller packages in sandbox.modules`,
          );
        }
        await mkdir(path.join(target, relative), { recursive: true });
        await copyFile(path.join(pkg.dir, file), path.join(target, file));
      }
    }
  };
  await walk('');
  return count;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

import module from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the CLI keeps V8's compiled code of the modules it loads: in the `node_modules/.cache/` beside
 * the package (`<project>/node_modules/.cache/agent-spaces/compile-cache` for an installed package, the
 * checkout's own `node_modules/.cache/…` in the repository), a folder owned by whoever installed the
 * package. Not Node's default under the system's temporary folder, which other users of the machine can
 * write first: compiled code read from a cache is code that runs.
 */
export function compileCacheDirectory(packageRoot: string): string {
  const parent = path.dirname(packageRoot);
  const nodeModules = path.basename(parent) === 'node_modules' ? parent : path.join(packageRoot, 'node_modules');
  return path.join(nodeModules, '.cache', 'agent-spaces', 'compile-cache');
}

/** What `enableCompileCache` did: the folder in use, or why there is none. */
export type CompileCacheState = { enabled: true; directory: string } | { enabled: false; reason: string };

/**
 * Turns on Node's module compile cache (Node ≥ 22.1) for the rest of this process: a later start loads
 * the CLI's modules from compiled code instead of parsing and compiling them again. Node 20 has no such
 * cache: then nothing happens. `NODE_DISABLE_COMPILE_CACHE=1` turns it off, `NODE_COMPILE_CACHE=<folder>`
 * chooses the folder (Node's own variables). A folder that cannot be written costs nothing but the cache.
 */
export function enableCompileCache(packageRoot: string = defaultPackageRoot()): CompileCacheState {
  const enable = (module as { enableCompileCache?: (directory?: string) => { status: number; message?: string; directory?: string } })
    .enableCompileCache;
  if (typeof enable !== 'function')
    return { enabled: false, reason: `Node ${process.version} has no module compile cache (Node ≥ 22.1 has)` };
  if (process.env['NODE_DISABLE_COMPILE_CACHE'] !== undefined && process.env['NODE_DISABLE_COMPILE_CACHE'] !== '') {
    return { enabled: false, reason: 'NODE_DISABLE_COMPILE_CACHE is set' };
  }
  const chosen = process.env['NODE_COMPILE_CACHE'];
  try {
    const result = enable(chosen !== undefined && chosen !== '' ? chosen : compileCacheDirectory(packageRoot));
    // module.constants.compileCacheStatus: ENABLED 1, ALREADY_ENABLED 2, FAILED 0, DISABLED 3.
    if ((result.status === 1 || result.status === 2) && result.directory !== undefined) {
      // Worker threads started from here on (the type-checker's, which loads TypeScript) read the variable.
      process.env['NODE_COMPILE_CACHE'] = result.directory;
      return { enabled: true, directory: result.directory };
    }
    return { enabled: false, reason: result.message ?? `status ${result.status}` };
  } catch (error) {
    return { enabled: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** The package's folder, found by the package's own name (from the sources and from dist/ alike). */
function defaultPackageRoot(): string {
  return path.dirname(fileURLToPath(import.meta.resolve('agent-spaces/package.json')));
}

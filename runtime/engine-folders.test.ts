/**
 * An engine is one folder and one entry in engines.ts: nothing outside an engine's folder imports from
 * it (types included, dynamic imports too) except engines.ts, which imports only its `engine.ts`. So
 * the library, the CLI and the engine-neutral tests reach an engine only through the registry, and a
 * new engine needs no edit elsewhere.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENGINE_NAMES } from './engines.js';

const RUNTIME_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(RUNTIME_DIR);
const SKIPPED = new Set(['node_modules', 'dist', '.git', '.tmp', '.agent-spaces', '.peers']);
/**
 * Files outside an engine's folder allowed to reach into it, each with why: a white-box hostile suite
 * named for its engine (it reads the engine's WebAssembly memory after a memory bomb), and the runtime
 * bench's baseline, a bare context of each engine with no bootstrap.
 */
const EXCEPTIONS: Record<string, string> = {
  'test/hostile/quickjs-engine.test.ts → runtime/quickjs/load-quickjs.ts': "reads QuickJS's WebAssembly memory size",
  'bench/runtime.ts → runtime/isolated-vm/load-isolated-vm.ts': 'a bare isolate: the baseline of a program’s own work in the sandbox',
  'bench/runtime.ts → runtime/quickjs/load-quickjs.ts': 'a bare QuickJS context: the baseline of a program’s own work in the sandbox',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(?:ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every relative import of `file` (static, `export … from`, side-effect, dynamic), as repository paths. */
function localImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm)].map((match) =>
    path.relative(ROOT, path.resolve(path.dirname(file), match[1] ?? '')).replace(/\.(?:js|mjs)$/, '.ts'),
  );
}

/** `from → to` for every import into an engine's folder from outside it. */
function importsIntoEngines(): string[] {
  const folders = ENGINE_NAMES.map((name) => `runtime/${name}/`);
  return sourceFiles(ROOT).flatMap((file) => {
    const from = path.relative(ROOT, file).split(path.sep).join('/');
    return localImports(file)
      .map((target) => target.split(path.sep).join('/'))
      .filter((target) => folders.some((folder) => target.startsWith(folder) && !from.startsWith(folder)))
      .map((target) => `${from} → ${target}`);
  });
}

describe('engine folders', () => {
  it('are imported from outside only by engines.ts, and only their engine.ts', () => {
    const edges = importsIntoEngines();
    const unexpected = edges.filter((edge) => !edge.startsWith('runtime/engines.ts → ') && EXCEPTIONS[edge] === undefined);
    expect(unexpected).toEqual([]);
    expect(edges.filter((edge) => edge.startsWith('runtime/engines.ts → ')).sort()).toEqual(
      ENGINE_NAMES.map((name) => `runtime/engines.ts → runtime/${name}/engine.ts`).sort(),
    );
  });
  it('sees imports into an engine folder (the check is not vacuous)', () => {
    const edges = importsIntoEngines();
    // The registry's own imports and the listed exceptions are found by the same walk.
    expect(edges).toEqual(expect.arrayContaining(['runtime/engines.ts → runtime/isolated-vm/engine.ts', ...Object.keys(EXCEPTIONS)]));
  });
});

import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENGINE_NAMES } from './engines.js';

const RUNTIME_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(RUNTIME_DIR);

function importsOf(file: string, options: { typesToo: boolean } = { typesToo: true }): string[] {
  const text = readFileSync(file, 'utf8');
  return (
    [...text.matchAll(/^\s*(?:import|export)\s([^;]*?)from\s+'([^']+)'/gms)]
      // `import type` is erased: it loads nothing at run time.
      .filter((match) => options.typesToo || !/^type\s/.test(match[1] ?? ''))
      .map((match) => match[2] ?? '')
  );
}

function resolveLocal(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return path.resolve(path.dirname(from), specifier).replace(/\.js$/, '.ts');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.contract.ts') ? [full] : [];
  });
}

describe('runtime import graph', () => {
  it('imports nothing of ours but core/ and itself', () => {
    const forbidden = sourceFiles(RUNTIME_DIR).flatMap((file) =>
      importsOf(file)
        .map((specifier) => resolveLocal(file, specifier))
        .filter((target): target is string => target !== undefined)
        .filter((target) => !target.startsWith(RUNTIME_DIR + path.sep) && !target.startsWith(path.join(ROOT, 'core') + path.sep))
        .map((target) => `${path.relative(ROOT, file)} → ${path.relative(ROOT, target)}`),
    );
    expect(forbidden).toEqual([]);
  });
  it('keeps the sandbox worker free of the compiler toolchain (it starts fast)', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of importsOf(file, { typesToo: false })) {
        const local = resolveLocal(file, specifier);
        if (local === undefined) packages.add(specifier);
        else visit(local);
      }
    };
    visit(path.join(RUNTIME_DIR, 'worker-pool', 'sandbox-worker.ts'));
    // The engines' bindings are loaded when a worker starts, each by its own engine.ts.
    expect([...packages].filter((name) => !name.startsWith('node:')).sort()).toEqual([]);
  });
  it('describes each engine without loading its binding or the guest code (engine.ts imports create-engine.ts only when loading)', () => {
    for (const name of ENGINE_NAMES) {
      const seen = new Set<string>();
      const visit = (file: string): void => {
        if (seen.has(file)) return;
        seen.add(file);
        for (const specifier of importsOf(file, { typesToo: false })) {
          const local = resolveLocal(file, specifier);
          if (local !== undefined) visit(local);
        }
      };
      const definition = path.join(RUNTIME_DIR, name, 'engine.ts');
      visit(definition);
      const reached = [...seen].map((file) => path.relative(RUNTIME_DIR, file));
      expect(reached).toContain(`${name}/engine.ts`);
      expect(reached.filter((file) => file.endsWith('create-engine.ts') || file.startsWith(`guest${path.sep}`))).toEqual([]);
      expect(readFileSync(definition, 'utf8')).toContain("import('./create-engine.js')");
    }
  });
});

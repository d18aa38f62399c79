import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
    // The engines are loaded when a worker starts (engines.ts), each by its own engine.ts.
    expect([...packages].filter((name) => !name.startsWith('node:')).sort()).toEqual([]);
    const engines = readFileSync(path.join(RUNTIME_DIR, 'engines.ts'), 'utf8');
    expect([...engines.matchAll(/import\('(\.\/[^']+)'\)/g)].map((match) => match[1])).toEqual([
      './isolated-vm/engine.js',
      './quickjs/engine.js',
      './isolated-vm/load-isolated-vm.js',
    ]);
  });
});

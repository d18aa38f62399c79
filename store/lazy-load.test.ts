// Without a store nothing of DBOS or pg may load: they are reached only through dynamic import().
// This reads the static import graph (type-only imports are erased, so they do not count) from the
// entry points every process without a store loads, and fails if it reaches either package.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HEAVY = ['@dbos-inc/dbos-sdk', 'pg'];

function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s+(?!type\s)[^'";]*?from\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm)].map(
    (match) => match[1] ?? match[2] ?? '',
  );
}

function resolveSource(from: string, specifier: string): string | undefined {
  const target = path.resolve(path.dirname(from), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), target];
  return candidates.find((candidate) => existsSync(candidate) && candidate.endsWith('.ts'));
}

/** Every package a file loads at once (statically), following our own files. */
function packagesLoadedBy(entry: string): Map<string, string> {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.')) {
        const next = resolveSource(file, specifier);
        if (next !== undefined) queue.push(next);
      } else {
        packages.set(
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
          path.relative(ROOT, file),
        );
      }
    }
  }
  return packages;
}

describe('without a store', () => {
  it.each(['index.ts', 'cli/commands/run.ts', 'space/index.ts', 'store/index.ts', 'studio/server/index.ts'])(
    '%s loads neither DBOS nor pg',
    (entry) => {
      const packages = packagesLoadedBy(path.join(ROOT, entry));
      expect(packages.size).toBeGreaterThan(0); // the graph was read
      expect(HEAVY.filter((name) => packages.has(name)).map((name) => `${name} (from ${packages.get(name)})`)).toEqual([]);
    },
  );

  it('the worker does load them (the check can fail)', () => {
    const packages = packagesLoadedBy(path.join(ROOT, 'worker/worker.ts'));
    expect(HEAVY.every((name) => packages.has(name))).toBe(true);
  });
});

// The parts depend on each other in one direction only (docs/ARCHITECTURE.md). This test reads the
// import graph of the sources and fails on a forbidden edge or a cycle between parts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What each part may import (besides itself and third-party packages). */
const ALLOWED: Record<string, string[]> = {
  core: [],
  config: ['core'],
  compiler: ['core', 'config', 'sources'],
  runtime: ['core'],
  bridge: ['core', 'config'],
  std: ['core'],
  sources: ['core', 'config', 'bridge', 'std'],
  space: ['core', 'config', 'compiler', 'runtime', 'bridge', 'std', 'sources'],
  planner: ['core', 'config', 'runtime', 'bridge', 'space'],
  agents: ['core', 'config', 'planner', 'bridge', 'space', 'compiler', 'server', 'sources'],
  server: ['core', 'config', 'compiler', 'runtime', 'bridge', 'space'],
  studio: ['core', 'config', 'compiler', 'bridge', 'space', 'planner', 'agents', 'server'],
  cli: ['core', 'config', 'compiler', 'runtime', 'bridge', 'std', 'sources', 'space', 'planner', 'agents', 'server', 'studio'],
  capabilities: ['core', 'root'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !/(__fixtures__|node_modules|\.test\.ts$|\.contract\.ts$|test-support)/.test(file));
}

function partOf(file: string): string {
  const relative = path.relative(ROOT, file).split(path.sep);
  return relative.length === 1 ? 'root' : (relative[0] as string);
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)];
  return specifiers.map((match) => match[1] ?? match[2] ?? '').filter((specifier) => specifier.startsWith('.'));
}

describe('layering', () => {
  const edges: { from: string; to: string; file: string }[] = [];
  for (const part of Object.keys(ALLOWED)) {
    let files: string[] = [];
    try {
      files = sourceFiles(path.join(ROOT, part));
    } catch {
      continue; // a part that does not exist yet
    }
    for (const file of files) {
      for (const specifier of imports(file)) {
        const target = partOf(path.resolve(path.dirname(file), specifier));
        if (target !== part) edges.push({ from: part, to: target, file: path.relative(ROOT, file) });
      }
    }
  }

  it('has no forbidden edge between parts', () => {
    const forbidden = edges.filter((edge) => !(ALLOWED[edge.from] ?? []).includes(edge.to)).map((edge) => `${edge.file} → ${edge.to}`);
    expect(forbidden).toEqual([]);
  });

  it('runtime and bridge never import each other', () => {
    expect(edges.filter((edge) => (edge.from === 'runtime' && edge.to === 'bridge') || (edge.from === 'bridge' && edge.to === 'runtime'))).toEqual([]);
  });

  it('reads a real import graph (the check is not vacuous)', () => {
    expect(edges.some((edge) => edge.from === 'compiler' && edge.to === 'core')).toBe(true);
    expect(edges.some((edge) => edge.from === 'space' && edge.to === 'runtime')).toBe(true);
  });
});

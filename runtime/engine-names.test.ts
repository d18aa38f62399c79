/**
 * Adding an engine is one folder and one line in engines.ts: no code outside the engine folders
 * names an engine. The config, the space, the CLI's doctor and serve take the names from the
 * registry (`ENGINE_CHOICES`, `checkEngines`, the `EngineRegistry` type each folder extends), so a
 * string literal naming an engine anywhere else is a place a new engine would have to be added by hand.
 * Comments, docs and tests may name engines; the exceptions below are code, each with why.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeFiles, withoutComments } from '../test/support/code-files.js';
import { ENGINE_NAMES } from './engines.js';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** Folders that are not library code: tests, benchmarks, scripts, build output, data. */
const SKIPPED = new Set([
  'node_modules',
  'dist',
  '.git',
  '.tmp',
  '.agent-spaces',
  '.peers',
  '__fixtures__',
  'test',
  'bench',
  'scripts',
  'generated',
]);
/** Code outside an engine folder that may name an engine, each with why. */
const EXCEPTIONS: Record<string, string> = {
  'runtime/sandbox.contract.ts': "the contract suite: V8's stack traces give exact columns, which it checks only on isolated-vm",
  'runtime/worker-pool/worker-entry.ts': "the bundler's externals: `isolated-vm` there is the npm package, not the engine",
};

/** `file: literal` for every string literal naming an engine outside the engine folders. */
function engineLiterals(): string[] {
  const literal = new RegExp(`(['"\`])(${ENGINE_NAMES.map((name) => name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|')})\\1`, 'g');
  return codeFiles(ROOT, SKIPPED).flatMap((file) => {
    const relative = path.relative(ROOT, file).split(path.sep).join('/');
    if (relative === 'runtime/engines.ts' || ENGINE_NAMES.some((name) => relative.startsWith(`runtime/${name}/`))) return [];
    return [...withoutComments(readFileSync(file, 'utf8')).matchAll(literal)].map((match) => `${relative}: ${match[0]}`);
  });
}

describe('engine names', () => {
  it('are written in code only in the engine folders and engines.ts (and the listed exceptions)', () => {
    const found = engineLiterals();
    expect(found.filter((hit) => EXCEPTIONS[hit.slice(0, hit.indexOf(':'))] === undefined)).toEqual([]);
  });
  it('are found where they are written (the check is not vacuous)', () => {
    const found = engineLiterals();
    for (const file of Object.keys(EXCEPTIONS)) expect(found.some((hit) => hit.startsWith(`${file}: `))).toBe(true);
    // The engine folders name themselves; the same walk, without skipping them, finds it.
    const own = readFileSync(path.join(ROOT, 'runtime', ENGINE_NAMES[0] ?? '', 'engine.ts'), 'utf8');
    expect(withoutComments(own)).toContain(`'${ENGINE_NAMES[0] ?? ''}'`);
  });
});

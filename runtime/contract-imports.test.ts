/**
 * The runtime's contract files — the engine contract, the executor interface, the worker pipe's
 * headers — import no implementation: following every import from them (type imports too) reaches only
 * other contract files and core/. An engine, a placement or the host's run bookkeeping imported here
 * would make every engine and every executor depend on it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RUNTIME_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(RUNTIME_DIR);

/** Local files `file` imports, types included, as paths relative to the repository. */
function localImports(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)].map((match) =>
    path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), match[1] ?? '').replace(/\.js$/, '.ts')),
  );
}

/** Every file reached from `start` by local imports. */
function closure(start: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    localImports(file).forEach(visit);
  };
  visit(start);
  return [...seen].sort();
}

const CONTRACTS = ['runtime/engine.ts', 'runtime/isolate-executor.ts', 'runtime/worker-protocol.ts'];
/** What a contract may reach besides core/: the contracts, and the sandbox interface (its limits and choices). */
const ALLOWED = new Set([...CONTRACTS, 'runtime/sandbox.ts']);

describe('runtime contract files', () => {
  for (const contract of CONTRACTS) {
    it(`${contract} reaches no engine, executor or host implementation`, () => {
      const reached = closure(contract).filter((file) => !file.startsWith(`core${path.sep}`) && !ALLOWED.has(file));
      expect(reached).toEqual([]);
    });
  }
  it('sees what a contract imports (the check is not vacuous)', () => {
    expect(closure('runtime/isolate-executor.ts')).toEqual(
      expect.arrayContaining(['runtime/engine.ts', 'runtime/sandbox.ts', 'core/protocol.ts', 'core/run-result.ts']),
    );
    // An implementation does reach other implementations: the same walk finds them.
    expect(closure('runtime/worker-pool/worker-pool.ts')).toEqual(
      expect.arrayContaining(['runtime/host-run.ts', 'runtime/host/call-gate.ts']),
    );
  });
});

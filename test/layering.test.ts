// The parts depend on each other in one direction only (docs/ARCHITECTURE.md). This test reads the
// import graph of the sources and fails on a forbidden edge between parts, and on an import that
// reaches past a part's index.ts without being one of the deliberate exceptions below.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What each part may import (besides itself and third-party packages). */
const ALLOWED: Record<string, string[]> = {
  core: [],
  config: ['core'],
  // The compiler takes the sources it compiles as core's CapabilitySource interface; space/ picks them.
  compiler: ['core', 'config'],
  runtime: ['core'],
  bridge: ['core', 'config'],
  std: ['core'],
  // Capability sources describe (for the compiler) and perform (through core's Backend) their tools; the
  // std source, which wraps std/'s tools, lives in space/ (as the agents' source lives in agents/).
  sources: ['core', 'config'],
  space: ['core', 'config', 'compiler', 'runtime', 'bridge', 'std', 'sources'],
  planner: ['core', 'config', 'runtime', 'bridge', 'space'],
  agents: ['core', 'config', 'planner', 'bridge', 'space', 'compiler', 'server', 'sources'],
  // server submits execute_code to a store when one is configured; the store never imports server.
  server: ['core', 'config', 'compiler', 'runtime', 'bridge', 'space', 'store'],
  // The eval pane reads run folders (eval/read-run.ts) and builds their reports as the harness does.
  studio: ['core', 'config', 'compiler', 'bridge', 'space', 'planner', 'agents', 'server', 'store', 'eval'],
  // Durable runs: one store over PostgreSQL (DBOS) with its views, below space/.
  store: ['core', 'config'],
  // The durable worker: a composition root above space/, beside the CLI, running queued work with a space.
  worker: ['core', 'config', 'store', 'space', 'planner', 'bridge'],
  // The eval harness drives a space through the serve surface (server) and the planner, as users would.
  eval: ['core', 'config', 'compiler', 'bridge', 'space', 'planner', 'server'],
  cli: [
    'core',
    'config',
    'compiler',
    'runtime',
    'bridge',
    'std',
    'sources',
    'space',
    'planner',
    'agents',
    'server',
    'studio',
    'store',
    'worker',
    'eval',
  ],
  capabilities: ['core', 'root'],
};

/**
 * Imports that reach a file of another part other than its `index.ts`, on purpose. Each names the
 * importing part, the files it may reach (a pattern on the path from the repository root) and why.
 */
const PAST_THE_INDEX: { from: string; to: RegExp; reason: string }[] = [
  {
    from: 'runtime',
    to: /^core\/(errors|manifest|protocol|run-result|keep-alive|edit-distance|utf8-size|sandbox-modules)\.js$/,
    reason:
      'the sandbox worker process loads runtime/ files: single files of core/ keep ajv and zod (core/json-schema.ts, define-tool.ts) out of it',
  },
  {
    from: 'compiler',
    to: /^core\/json-schema\.js$/,
    reason:
      'createJsonSchemaCompiler, the one ajv setup the compiler checks schemas with and the bridge validates with, is internal to core (not public API)',
  },
  {
    from: 'bridge',
    to: /^core\/json-schema\.js$/,
    reason: 'createJsonSchemaCompiler, as for the compiler',
  },
  {
    from: 'worker',
    to: /^store\/internals\.js$/,
    reason:
      'the worker writes the store itself inside its DBOS steps (journal, events, liveness, approvals, retention); store/index.ts, the API, loads neither pg nor DBOS',
  },
  {
    from: 'cli',
    to: /^runtime\/worker-pool\/prestart\.js$/,
    reason:
      "starts the run's sandbox worker before the library loads (its Node start overlaps the CLI's loading), without loading the runtime",
  },
  {
    from: 'cli',
    to: /^runtime\/type-check\.js$/,
    reason: 'warms the type checker while the CLI parses, without loading the rest of the runtime (sandbox, worker pool) first',
  },
  {
    from: 'cli',
    to: /^runtime\/program\/compile-program\.js$/,
    reason: "a warm process of the CLI's daemon (cli/daemon/warm.ts) compiles a throwaway program so that a run finds sucrase loaded",
  },
  {
    from: 'cli',
    to: /^studio\/server\/index\.js$/,
    reason: 'studio/ has two halves and no index of its own: studio/server/ runs in Node, studio/ui/ in the browser',
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !/(__fixtures__|node_modules|\.test\.ts$|\.contract\.ts$|test-support)/.test(file));
}

/** The import's target as a path from the repository root, with `/` separators (`sources/index.js`). */
function targetOf(file: string, specifier: string): string {
  return path
    .relative(ROOT, path.resolve(path.dirname(file), specifier))
    .split(path.sep)
    .join('/');
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
  const edges: { from: string; to: string; file: string; target: string }[] = [];
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
        if (target !== part) edges.push({ from: part, to: target, file: path.relative(ROOT, file), target: targetOf(file, specifier) });
      }
    }
  }

  it('has no forbidden edge between parts', () => {
    const forbidden = edges.filter((edge) => !(ALLOWED[edge.from] ?? []).includes(edge.to)).map((edge) => `${edge.file} → ${edge.to}`);
    expect(forbidden).toEqual([]);
  });

  it('imports another part through its index.ts, or as a listed exception', () => {
    const past = edges.filter(
      (edge) =>
        edge.to !== 'root' &&
        edge.target !== `${edge.to}/index.js` &&
        !PAST_THE_INDEX.some((exception) => exception.from === edge.from && exception.to.test(edge.target)),
    );
    expect(past.map((edge) => `${edge.file} → ${edge.target}`)).toEqual([]);
  });

  it('lists only exceptions that are still taken', () => {
    const unused = PAST_THE_INDEX.filter(
      (exception) => !edges.some((edge) => edge.from === exception.from && exception.to.test(edge.target)),
    );
    expect(unused.map((exception) => `${exception.from} → ${exception.to.source}`)).toEqual([]);
  });

  it('allows no cycle between parts (so no part can reach itself through others)', () => {
    const reaches = (from: string, seen = new Set<string>()): Set<string> => {
      for (const to of ALLOWED[from] ?? []) {
        if (seen.has(to)) continue;
        seen.add(to);
        reaches(to, seen);
      }
      return seen;
    };
    expect(Object.keys(ALLOWED).filter((part) => reaches(part).has(part))).toEqual([]);
  });

  it('runtime and bridge never import each other', () => {
    expect(
      edges.filter((edge) => (edge.from === 'runtime' && edge.to === 'bridge') || (edge.from === 'bridge' && edge.to === 'runtime')),
    ).toEqual([]);
  });

  it('reads a real import graph (the check is not vacuous)', () => {
    expect(edges.some((edge) => edge.from === 'compiler' && edge.to === 'core')).toBe(true);
    expect(edges.some((edge) => edge.from === 'space' && edge.to === 'runtime')).toBe(true);
    expect(edges.some((edge) => edge.from === 'space' && edge.to === 'sources')).toBe(true);
    expect(edges.some((edge) => edge.from === 'runtime' && edge.target === 'core/protocol.js')).toBe(true);
  });
});

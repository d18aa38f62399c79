/**
 * The CLI's bundle (issue 30, "where a person waits"): what `agent-spaces` loads in its own process, in
 * a few ES modules instead of ~300 files for Node's ES module loader to resolve, read and compile (Node 20
 * has no compile cache). Built from the compiled dist/ (after `tsc -p tsconfig.build.json`) into
 * dist/cli/bundle/: four entries, `main.js` and `interrupt.js` (the bin imports both, and they must share
 * one instance of the interrupt state), `warm.js` (a warm process of the CLI's daemon, cli/daemon/warm.ts) and `index.js`, the library's index (what a TypeScript capability
 * importing 'agent-spaces' gets in the CLI: config/load-config.ts), and the modules they import lazily as
 * chunks of their own (`splitting`), so that what is loaded on demand today is still loaded on demand.
 *
 * The files of dist/ stay: the sandbox worker, the type-check workers and the library's entry are started
 * or imported from them by path. A bundled module that finds a file relative to itself
 * (`import.meta.url`: worker entries, `createRequire`, the TypeScript loader's parent) gets the URL of its
 * own file in dist/, written relative to the bundle, so it still finds it wherever the package is installed.
 *
 * Packages stay outside when they are native, large and loaded on demand, or find files beside
 * themselves (esbuild's binary, the QuickJS .wasm), and so does every package a module imports
 * dynamically (`await import('yaml')`): esbuild makes such a package, when it is CommonJS, a chunk
 * whose only export is `default`, and `(await import('yaml')).parse` would be undefined — Node's own
 * loader gives a CommonJS package its named exports. The rest (zod, ajv, what is imported statically)
 * are bundled. A CommonJS package bundled into an ES module gets `require` from `createRequire`. The
 * build fails if a chunk imported dynamically still exports `default` alone.
 *
 * `node scripts/bundle-cli.mjs [dist folder]` (the `build` script runs it); it replaces the folder at once.
 */
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const EXTERNAL = [
  'isolated-vm',
  'typescript',
  'typescript-native',
  '@typescript/*',
  'ts-morph',
  'tsx',
  'tsx/*',
  'esbuild',
  'quickjs-emscripten',
  'quickjs-emscripten-core',
  '@jitl/*',
  'pg',
  '@dbos-inc/*',
  '@modelcontextprotocol/*',
];

/** The bundle's entries: the CLI's, and the library's index, which the CLI hands to a TypeScript capability importing 'agent-spaces'. */
const ENTRIES = { main: 'cli/main.js', interrupt: 'cli/interrupt.js', index: 'index.js', warm: 'cli/daemon/warm.js' };

/** Bundles `dist`'s CLI into `dist/cli/bundle`; returns the files written. */
export async function bundleCli(dist) {
  const root = path.resolve(dist);
  const outdir = path.join(root, 'cli', 'bundle');
  for (const entry of Object.values(ENTRIES)) {
    const file = path.join(root, entry);
    if (!existsSync(file)) throw new Error(`bundle-cli: ${file} is missing: compile first (tsc -p tsconfig.build.json)`);
  }
  // Written beside, then put in place: an interrupted build leaves no half bundle for the bin to load.
  const staging = `${outdir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  try {
    const result = await build({
      entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, entry]) => [name, path.join(root, entry)])),
      outdir: staging,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: EXTERNAL,
      chunkNames: 'chunk-[hash]',
      banner: { js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);" },
      plugins: [ownUrls(root, outdir), dynamicImportsOutside(root)],
      legalComments: 'none',
      logLevel: 'warning',
      metafile: true,
    });
    const lost = defaultOnlyDynamicChunks(result.metafile);
    if (lost.length > 0)
      throw new Error(
        `bundle-cli: ${lost.join(', ')}: imported dynamically, but only a default export (a CommonJS module bundled into a chunk: its named exports are lost). Import it statically, or keep its package outside the bundle.`,
      );
    rmSync(outdir, { recursive: true, force: true });
    renameSync(staging, outdir);
    return Object.keys(result.metafile.outputs).map((file) => path.join(outdir, path.relative(staging, path.resolve(file))));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * sucrase (57 CommonJS files that Node's loader resolves and compiles one by one at a process's first
 * program, ~95 ms) in one file beside the module that loads it, dist/runtime/program/sucrase.cjs
 * (runtime/program/compile-program.ts takes it when it is there): ~50 ms, for the CLI and for every
 * host using the built package. Written beside, then put in place.
 */
export async function bundleSucrase(dist) {
  const outfile = path.join(path.resolve(dist), 'runtime', 'program', 'sucrase.cjs');
  const staging = `${outfile}.${process.pid}.tmp`;
  try {
    await build({
      entryPoints: [createRequire(import.meta.url).resolve('sucrase')],
      outfile: staging,
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      legalComments: 'eof',
      logLevel: 'warning',
    });
    renameSync(staging, outfile);
  } finally {
    rmSync(staging, { force: true });
  }
  return outfile;
}

/**
 * A package a module of dist/ imports with `import()` (a bare name) is left to Node's loader at run time:
 * it is a dependency of this package, found from the bundle's folder. A bundled package's own `import()`
 * stays bundled (what it names may be its own nested dependency, not found from here).
 */
function dynamicImportsOutside(root) {
  return {
    name: 'dynamic-imports-outside',
    setup(esbuild) {
      esbuild.onResolve({ filter: /^[^./#]/ }, (args) =>
        args.kind === 'dynamic-import' && args.importer.startsWith(root + path.sep) ? { path: args.path, external: true } : undefined,
      );
    },
  };
}

/** The chunks some output imports with `import()` that hold a CommonJS module whose only export is now `default`. */
function defaultOnlyDynamicChunks(metafile) {
  const dynamic = new Set();
  for (const output of Object.values(metafile.outputs))
    for (const imported of output.imports) if (imported.kind === 'dynamic-import' && imported.external !== true) dynamic.add(imported.path);
  return [...dynamic].filter((file) => {
    const output = metafile.outputs[file];
    const exports = output?.exports ?? [];
    const commonJs = Object.keys(output?.inputs ?? {}).some((input) => metafile.inputs[input]?.format === 'cjs');
    return commonJs && exports.length === 1 && exports[0] === 'default';
  });
}

/** Each module of dist/ keeps its own `import.meta.url`: its file's URL, relative to the bundle's folder. */
function ownUrls(root, outdir) {
  return {
    name: 'own-import-meta-url',
    setup(esbuild) {
      esbuild.onLoad({ filter: /\.js$/ }, (args) => {
        if (!args.path.startsWith(root + path.sep)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
        const relative = path.relative(outdir, args.path).split(path.sep).join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: 'js' };
      });
    },
  };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const dist = path.resolve(process.argv[2] ?? 'dist');
  const files = [...(await bundleCli(dist)), await bundleSucrase(dist)];
  // On stderr: `npm pack --json` (which runs the build as prepare) keeps stdout for its report.
  process.stderr.write(
    `bundle-cli: ${files.length - 1} files in ${path.join(dist, 'cli', 'bundle')} and ${path.relative(dist, files.at(-1))} (${Math.round(performance.now() - started)} ms)\n`,
  );
}

/**
 * Bundles one specifier of `sandbox.modules` into a single ES module with esbuild: platform `neutral`
 * (no Node or browser assumptions, no `browser` field swaps), nothing external, nothing polyfilled. An
 * import the sandbox lacks — a Node built-in (`fs`, `node:crypto`, `http`, …) or a package that is not
 * installed — fails the bundle, naming the import and the chain of files that led to it.
 */
import path from 'node:path';
import type { Message, Plugin, PluginBuild } from 'esbuild';
import { CompileError } from '../../core/index.js';
import { isNodeBuiltin } from './packages.js';

export interface BundledModule {
  code: string;
  /** The packages whose files the bundle holds (`name` → folder), from the bundle's inputs. */
  packages: string[];
}

const REFUSED_IMPORT = 'agent-spaces-refused-import';

/** Bundles `specifier` as resolved from `root`; throws a `CompileError` that says what the sandbox lacks. */
export async function bundleModule(specifier: string, root: string): Promise<BundledModule> {
  const { build } = await import('esbuild');
  const parents = new Map<string, string>();
  const refused: { specifier: string; chain: string[] }[] = [];
  const tracker: Plugin = {
    name: 'agent-spaces-sandbox-imports',
    setup: (plugin) => trackImports(plugin, root, parents, refused),
  };
  let result;
  try {
    result = await build({
      entryPoints: [specifier],
      absWorkingDir: root,
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      // `module` before `main` (ESM first); never `browser`, whose swaps would stub modules silently.
      mainFields: ['module', 'main'],
      conditions: ['module'],
      // A build-time constant many packages branch on; it grants nothing (there is still no `process`).
      define: { 'process.env.NODE_ENV': '"production"' },
      minifyWhitespace: true,
      minifySyntax: true,
      legalComments: 'none',
      metafile: true,
      logLevel: 'silent',
      plugins: [tracker],
    });
  } catch (error) {
    throw bundleError(specifier, root, refused, (error as { errors?: Message[] }).errors ?? [], error);
  }
  const code = result.outputFiles[0]?.text ?? '';
  const packages = new Set<string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input.split(path.sep).join('/'));
    if (match?.[1] !== undefined) packages.add(match[1]);
  }
  return { code, packages: [...packages].sort() };
}

/** Records who imported each resolved file, and refuses the imports the sandbox lacks with the chain that led there. */
function trackImports(
  plugin: PluginBuild,
  root: string,
  parents: Map<string, string>,
  refused: { specifier: string; chain: string[] }[],
): void {
  plugin.onResolve({ filter: /.*/ }, async (args) => {
    if (args.pluginData === REFUSED_IMPORT) return undefined;
    if (isNodeBuiltin(args.path)) {
      refused.push({ specifier: args.path, chain: chainOf(args.importer, parents, root) });
      return { errors: [{ text: `the sandbox has no Node built-in "${args.path}"` }] };
    }
    const resolved = await plugin.resolve(args.path, {
      kind: args.kind,
      importer: args.importer,
      resolveDir: args.resolveDir,
      pluginData: REFUSED_IMPORT,
    });
    if (resolved.errors.length > 0) {
      refused.push({ specifier: args.path, chain: chainOf(args.importer, parents, root) });
      return { errors: resolved.errors };
    }
    if (resolved.path !== '' && args.importer !== '' && !parents.has(resolved.path)) parents.set(resolved.path, args.importer);
    return resolved;
  });
}

/** The files from the entry to `importer`, config-relative, entry first. */
function chainOf(importer: string, parents: Map<string, string>, root: string): string[] {
  const chain: string[] = [];
  for (let file: string | undefined = importer; file !== undefined && file !== '' && chain.length < 50; file = parents.get(file)) {
    chain.unshift(path.relative(root, file).split(path.sep).join('/'));
  }
  return chain;
}

function bundleError(
  specifier: string,
  root: string,
  refused: readonly { specifier: string; chain: string[] }[],
  messages: readonly Message[],
  cause: unknown,
): CompileError {
  const first = refused[0];
  if (first !== undefined) {
    const what = isNodeBuiltin(first.specifier)
      ? `imports the Node built-in "${first.specifier}", which the sandbox does not have (no file system, network or process inside it)`
      : `imports "${first.specifier}", which is not installed in ${root}`;
    const chain = first.chain.length > 0 ? ` (import chain: ${[specifier, ...first.chain].join(' → ')} → ${first.specifier})` : '';
    const others = [...new Set(refused.map((r) => r.specifier))].filter((name) => name !== first.specifier);
    const more = others.length > 0 ? `; also: ${others.slice(0, 8).join(', ')}` : '';
    return new CompileError('SANDBOX_MODULE_REFUSED', `sandbox module "${specifier}" ${what}${chain}${more}`, {
      details: { module: specifier, refused: refused.map((r) => ({ import: r.specifier, chain: r.chain })) },
      cause,
    });
  }
  const text = messages.map(
    (message) => `${message.text}${message.location ? ` (${message.location.file}:${message.location.line})` : ''}`,
  );
  return new CompileError(
    'SANDBOX_MODULE_BUNDLE_FAILED',
    `sandbox module "${specifier}" could not be bundled: ${text.join('; ') || String(cause)}`,
    {
      details: { module: specifier },
      cause,
    },
  );
}

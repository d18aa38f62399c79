/**
 * What a sandbox worker process is started from: the program (the worker entry beside this file, or a
 * test's own), Node's flags, and the little of the host's environment it inherits.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { buildSync as BuildSync } from 'esbuild';
import type { EngineChoice } from '../engine.js';

export interface WorkerEntry {
  file: string;
  execArgv: string[];
  args: string[];
}

/** isolated-vm needs it wherever an isolate is made; QuickJS does not mind it. */
const EXEC_ARGV = ['--no-node-snapshot'];

/** The entry a pool starts its workers from: `custom` (tests start hostile workers), or the sandbox worker loading `engine`. */
export function resolveWorkerEntry(custom: { file: string; args?: string[] } | undefined, engine: EngineChoice): WorkerEntry {
  if (custom !== undefined) return { file: custom.file, execArgv: EXEC_ARGV, args: custom.args ?? [] };
  return sandboxWorkerEntry(engine);
}

/**
 * What a sandbox worker inherits of the host's environment: enough for Node to start and to resolve the
 * modules the host resolves (NODE_PATH: the engine's package may be found through it), no secrets.
 */
export function workerEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'TZ', 'LANG', 'LC_ALL', 'TMPDIR', 'NODE_PATH']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * The worker entry beside this file. From dist it is plain JavaScript. From the TypeScript sources
 * (tests, development) it is bundled once per host process into the package's node_modules/.cache, so
 * a worker starts without a TypeScript loader: measured here, 48 MB per idle worker instead of 84.
 */
function sandboxWorkerEntry(engine: EngineChoice): WorkerEntry {
  const here = fileURLToPath(import.meta.url);
  const extension = path.extname(here);
  const source = path.join(path.dirname(here), `sandbox-worker${extension}`);
  if (extension !== '.ts') return { file: source, execArgv: EXEC_ARGV, args: [engine] };
  bundledWorker ??= bundleWorker(source);
  return { file: bundledWorker, execArgv: EXEC_ARGV, args: [engine] };
}

let bundledWorker: string | undefined;

function bundleWorker(source: string): string {
  const require = createRequire(import.meta.url);
  const { buildSync } = require('esbuild') as { buildSync: typeof BuildSync };
  // The engines' packages stay outside: isolated-vm is found at run time (load-isolated-vm.ts), and
  // QuickJS reads its .wasm file beside its own module.
  const external = ['isolated-vm', 'isolated-vm-*', 'quickjs-emscripten-core', '@jitl/*'];
  const built = buildSync({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external,
    write: false,
    logLevel: 'silent',
  });
  const code = built.outputFiles[0]?.text ?? '';
  // In the package's own node_modules, so the bundle resolves what it left outside; named by its
  // content, written atomically.
  const cacheDir = path.join(path.dirname(path.dirname(require.resolve('esbuild/package.json'))), '.cache', 'agent-spaces');
  const file = path.join(cacheDir, `sandbox-worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(cacheDir, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, code);
    renameSync(temporary, file);
  }
  return file;
}

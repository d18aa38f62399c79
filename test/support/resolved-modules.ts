import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeTempDir } from './temp-dir.js';

// A `module.register` resolve hook for a child process: every URL an ES module import resolves to is
// appended to a file, so a test can say which modules and packages the child loaded. Node 20's hooks do
// not see `require()`, so the probe also lists the CommonJS files in the require cache at exit.

const HOOK = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`;

const REGISTER = `
import { register, createRequire } from 'node:module';
const log = process.env.RESOLVED_MODULES_LOG;
register(new URL('./hook.mjs', import.meta.url), { data: { log } });
process.on('exit', () => {
  const { appendFileSync } = createRequire(import.meta.url)('node:fs');
  const files = Object.keys(createRequire(import.meta.url).cache).map((file) => 'file://' + file);
  if (files.length > 0) appendFileSync(log, files.join('\\n') + '\\n');
});
`;

export interface ResolvedModules {
  /** Node arguments that register the hook: put them before the script or `-e`. */
  nodeArgs: string[];
  /** Environment for the child (the log file's path). */
  env: Record<string, string>;
  /** Every URL resolved so far (ES module imports, then CommonJS files loaded, once the child exited). */
  urls(): Promise<string[]>;
}

export async function recordResolvedModules(): Promise<ResolvedModules> {
  const dir = await makeTempDir('resolved-modules');
  const log = path.join(dir, 'resolved.log');
  await writeFile(path.join(dir, 'hook.mjs'), HOOK);
  await writeFile(path.join(dir, 'register.mjs'), REGISTER);
  await writeFile(log, '');
  return {
    nodeArgs: ['--import', pathToFileURL(path.join(dir, 'register.mjs')).href],
    env: { RESOLVED_MODULES_LOG: log },
    async urls() {
      return [...new Set((await readFile(log, 'utf8')).split('\n').filter((line) => line !== ''))];
    },
  };
}

/** The packages (`name` or `@scope/name`) under node_modules that the URLs point into. */
export function packagesOf(urls: string[]): string[] {
  const names = urls
    .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)].sort();
}

/**
 * The repository's own modules among the URLs (not node_modules, not the hook under .tmp/), relative to
 * it, without extension and without a leading `dist/`: the same names from the sources and from a build.
 */
export function repoModulesOf(urls: string[], repo: string): string[] {
  const root = pathToFileURL(repo).href.replace(/\/?$/, '/');
  const files = urls
    .filter((url) => url.startsWith(root) && !url.includes('/node_modules/') && !url.startsWith(`${root}.tmp/`))
    .map((url) =>
      url
        .slice(root.length)
        .replace(/[?#].*$/, '')
        .replace(/^dist\//, '')
        .replace(/\.(ts|js|mjs)$/, ''),
    );
  return [...new Set(files)].sort();
}

import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeLine } from '../test/support/node-line.js';
import { compileCacheDirectory, enableCompileCache } from './compile-cache.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const folders: string[] = [];

afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'agent-spaces-compile-cache-'));
  folders.push(folder);
  return folder;
}

/** Every file under a folder, by path relative to it. */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((name) => statSync(path.join(folder, name)).isFile());
}

describe('the CLI compile cache', () => {
  it('lives in the node_modules/.cache beside the package, installed or checked out', () => {
    expect(compileCacheDirectory('/p/node_modules/agent-spaces')).toBe('/p/node_modules/.cache/agent-spaces/compile-cache');
    expect(compileCacheDirectory('/work/agent-spaces')).toBe('/work/agent-spaces/node_modules/.cache/agent-spaces/compile-cache');
  });

  it('is a no-op saying why on a Node without one (this line, 20)', async () => {
    if (typeof Reflect.get((await import('node:module')).default, 'enableCompileCache') === 'function') {
      // On a line that has it, the test below covers it: here the answer must then be an enabled cache.
      const before = process.env['NODE_COMPILE_CACHE'];
      const state = enableCompileCache(await scratch());
      if (before === undefined) delete process.env['NODE_COMPILE_CACHE'];
      else process.env['NODE_COMPILE_CACHE'] = before;
      expect(state.enabled).toBe(true);
      return;
    }
    const root = await scratch();
    const state = enableCompileCache(root);
    expect(state).toEqual({ enabled: false, reason: expect.stringMatching(/has no module compile cache/) });
    expect(existsSync(path.join(root, 'node_modules'))).toBe(false);
  });

  it('on Node 24, fills the folder for the main thread and for worker threads started later; NODE_DISABLE_COMPILE_CACHE turns it off', async () => {
    const line = await nodeLine(24);
    const env = { ...process.env };
    delete env['NODE_COMPILE_CACHE'];
    delete env['NODE_DISABLE_COMPILE_CACHE'];
    /** Runs the script in a new package root; with `thread`, a worker thread compiles one more module. */
    const start = async (
      thread: boolean,
      extraEnv: NodeJS.ProcessEnv = {},
    ): Promise<{ state: unknown; cached: string[]; directory: string }> => {
      const root = await scratch();
      // A module of some size for each thread to compile, loaded after the cache is on.
      await writeFile(
        path.join(root, 'main-module.mjs'),
        `export const values = [${Array.from({ length: 200 }, (_, i) => `() => ${i}`).join(', ')}];\n`,
      );
      await writeFile(
        path.join(root, 'thread-module.cjs'),
        `module.exports = [${Array.from({ length: 200 }, (_, i) => `() => ${i} + 1`).join(', ')}];\n`,
      );
      const script = [
        `import { enableCompileCache } from ${JSON.stringify(path.join(REPO, 'cli/compile-cache.ts'))};`,
        `import { Worker } from 'node:worker_threads';`,
        `const state = enableCompileCache(${JSON.stringify(root)});`,
        `await import(${JSON.stringify(path.join(root, 'main-module.mjs'))});`,
        thread
          ? `await new Promise((resolve, reject) => { const worker = new Worker(${JSON.stringify(`require(${JSON.stringify(path.join(root, 'thread-module.cjs'))})`)}, { eval: true }); worker.on('exit', resolve); worker.on('error', reject); });`
          : '',
        `console.log(JSON.stringify(state));`,
      ].join('\n');
      await writeFile(path.join(root, 'script.mts'), script);
      const { stdout } = await run(line.node, ['--import', 'tsx', path.join(root, 'script.mts')], {
        cwd: REPO,
        env: { ...env, ...extraEnv },
      });
      const directory = compileCacheDirectory(root);
      return { state: JSON.parse(stdout) as unknown, cached: filesUnder(directory), directory };
    };
    const withThread = await start(true);
    expect(withThread.state).toEqual({ enabled: true, directory: withThread.directory });
    // Node writes one cache file per compiled module, under a folder named for its version.
    expect(withThread.cached.length).toBeGreaterThanOrEqual(1);
    expect(withThread.cached.every((name) => name.startsWith(`${line.version}-`))).toBe(true);
    // The worker thread's modules are files more than the same start without the thread.
    const withoutThread = await start(false);
    expect(withoutThread.cached.length).toBeGreaterThanOrEqual(1);
    expect(withThread.cached.length).toBeGreaterThan(withoutThread.cached.length);

    const off = await start(true, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(off.state).toEqual({ enabled: false, reason: 'NODE_DISABLE_COMPILE_CACHE is set' });
    expect(off.cached).toEqual([]);
  }, 600_000);
});

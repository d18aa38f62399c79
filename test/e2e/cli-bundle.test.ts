// The CLI's bundle (scripts/bundle-cli.mjs, issue 30): the installed package's bin runs `run` from
// dist/cli/bundle/. Built here from a fresh compile of the sources into a folder laid out as an installed
// package (its bin, package.json, dist, and the checkout's node_modules), then used as a user would.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/example-space.js';

const run = promisify(execFile);
const root = mkdtempSync(path.join(os.tmpdir(), 'agent-spaces-cli-bundle-'));
const pkg = path.join(root, 'pkg');
const bundle = path.join(pkg, 'dist', 'cli', 'bundle');

const WEATHER = `import * as library from 'agent-spaces';

export const weather = library.defineTool({
  name: 'weather',
  functions: {
    getWeather: library.defineFunction({
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      returns: { type: 'object', properties: { celsius: { type: 'number' }, shared: { type: 'boolean' } }, required: ['celsius', 'shared'] },
      // Whether this file got the CLI's own copy of the library (the preload below holds the bundle's index).
      handler: async ({ city }) => ({ celsius: city === 'Oslo' ? 3 : 20, shared: library.defineTool === globalThis.bundledIndex?.defineTool }),
    }),
  },
});
`;
const PROGRAM = `import { weather } from '@capabilities/weather';\nexport default await weather.getWeather({ city: 'Oslo' });\n`;

beforeAll(async () => {
  mkdirSync(path.join(pkg, 'bin'), { recursive: true });
  copyFileSync(path.join(REPO, 'bin/agent-spaces.js'), path.join(pkg, 'bin/agent-spaces.js'));
  copyFileSync(path.join(REPO, 'package.json'), path.join(pkg, 'package.json'));
  symlinkSync(path.join(REPO, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
  await run(
    process.execPath,
    [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(pkg, 'dist')],
    {
      cwd: REPO,
    },
  );
  await run(process.execPath, [path.join(REPO, 'scripts/bundle-cli.mjs'), path.join(pkg, 'dist')], { cwd: REPO });
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A space using the package: the README's capability, the program, and `type` for its package.json (none: CommonJS). */
function space(name: string, type?: 'module'): string {
  const folder = path.join(root, name);
  mkdirSync(path.join(folder, 'node_modules'), { recursive: true });
  mkdirSync(path.join(folder, 'capabilities'));
  symlinkSync(pkg, path.join(folder, 'node_modules', 'agent-spaces'), 'dir');
  writeFileSync(path.join(folder, 'capabilities', 'weather.ts'), WEATHER);
  writeFileSync(path.join(folder, 'program.ts'), PROGRAM);
  if (type !== undefined) writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ type }));
  return folder;
}

describe('the CLI bundle (scripts/bundle-cli.mjs)', { timeout: 120_000 }, () => {
  it('has the entries the bin loads, and every module finds files from where its own file is in dist/', () => {
    for (const entry of ['main.js', 'interrupt.js', 'index.js']) expect(existsSync(path.join(bundle, entry)), entry).toBe(true);
    const uses: string[] = [];
    for (const file of readdirSync(bundle)) {
      const text = readFileSync(path.join(bundle, file), 'utf8');
      for (const match of text.matchAll(/(new URL\("([^"]+)", )?import\.meta\.url/g)) {
        if (match[2] !== undefined) uses.push(match[2]);
        else {
          // Only the banner's own `require` may use the bundle's URL as it is.
          const line = text.slice(text.lastIndexOf('\n', match.index) + 1, text.indexOf('\n', match.index));
          expect(line, `${file}: ${line}`).toBe('const require = __bundleRequire(import.meta.url);');
        }
      }
    }
    expect(uses).toEqual(expect.arrayContaining(['../../runtime/worker-pool/worker-entry.js', '../../runtime/type-check/check-pool.js']));
    for (const relative of uses) expect(existsSync(path.resolve(bundle, relative)), relative).toBe(true);
  });

  for (const type of [undefined, 'module'] as const) {
    it(`runs a program through the bin, type-checked, with a TypeScript capability that gets the bundle's library (${type === undefined ? 'CommonJS' : 'ES module'} space)`, async () => {
      const folder = space(type === undefined ? 'commonjs-space' : 'module-space', type);
      // Loaded before the bin: the bundle's index, the instance the CLI then holds (one per URL).
      const preload = path.join(root, 'preload.mjs');
      writeFileSync(
        preload,
        `globalThis.bundledIndex = await import(${JSON.stringify(pathToFileURL(path.join(bundle, 'index.js')).href)});\n`,
      );
      const env = { ...process.env };
      delete env['NODE_OPTIONS'];
      delete env['AGENT_SPACES_ENGINE'];
      const { stdout } = await run(
        process.execPath,
        ['--import', pathToFileURL(preload).href, path.join(pkg, 'bin/agent-spaces.js'), 'run', 'program.ts', '--json'],
        {
          cwd: folder,
          env,
        },
      );
      expect(JSON.parse(stdout)).toMatchObject({ success: true, result: { celsius: 3, shared: true } });
    });
  }

  it('without a bundle the bin runs dist/cli/main.js', async () => {
    const plain = path.join(root, 'no-bundle');
    mkdirSync(path.join(plain, 'bin'), { recursive: true });
    copyFileSync(path.join(pkg, 'bin/agent-spaces.js'), path.join(plain, 'bin/agent-spaces.js'));
    copyFileSync(path.join(pkg, 'package.json'), path.join(plain, 'package.json'));
    symlinkSync(path.join(REPO, 'node_modules'), path.join(plain, 'node_modules'), 'dir');
    // dist/ without its bundle folder: every other file linked from the built package.
    mkdirSync(path.join(plain, 'dist'));
    for (const entry of readdirSync(path.join(pkg, 'dist'))) {
      if (entry !== 'cli') symlinkSync(path.join(pkg, 'dist', entry), path.join(plain, 'dist', entry));
    }
    mkdirSync(path.join(plain, 'dist', 'cli'));
    for (const entry of readdirSync(path.join(pkg, 'dist', 'cli'))) {
      if (entry !== 'bundle') symlinkSync(path.join(pkg, 'dist', 'cli', entry), path.join(plain, 'dist', 'cli', entry));
    }
    const folder = path.join(root, 'no-bundle-space');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'program.ts'), 'export default 1 + 1;\n');
    const { stdout } = await run(process.execPath, [path.join(plain, 'bin/agent-spaces.js'), 'run', 'program.ts', '--no-check', '--json'], {
      cwd: folder,
    });
    expect(JSON.parse(stdout)).toMatchObject({ success: true, result: 2 });
  });
});

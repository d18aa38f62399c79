// The CLI's bundle (scripts/bundle-cli.mjs, issue 30): the installed package's bin runs `run` from
// dist/cli/bundle/. The package this test run packed (package-on-line.ts `unpackedPackage`: its bin,
// package.json and dist, with the checkout's node_modules), then used as a user would.
import { execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/example-space.js';
import { unpackedPackage } from './package-on-line.js';

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
  // The package as packed for this test run (built once, by `npm ci` in CI), not a build of its own.
  await unpackedPackage(pkg);
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

  it("compiles programs with sucrase in one file (dist/runtime/program/sucrase.cjs), not its package's 57", async () => {
    const probe = [
      "import { createRequire } from 'node:module';",
      `const { compileProgram } = await import(${JSON.stringify(pathToFileURL(path.join(pkg, 'dist/runtime/program/compile-program.js')).href)});`,
      "const compiled = compileProgram('const n: number = 1;\\nexport default n;');",
      'const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => /sucrase/.test(file));',
      'console.log(JSON.stringify({ ok: compiled.ok, js: compiled.js, loaded }));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { cwd: root });
    const answer = JSON.parse(stdout) as { ok: boolean; js: string; loaded: string[] };
    expect(answer.ok).toBe(true);
    expect(answer.js).not.toContain('number');
    expect(answer.loaded).toEqual([realpathSync(path.join(pkg, 'dist/runtime/program/sucrase.cjs'))]);
  });

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

// The user's daemon (`agent-spaces daemon start`, cli/daemon/): `run` of the installed package handed to a
// warm process over a socket in the user's own folder. Its own XDG_RUNTIME_DIR, so it meets no other.
describe('the CLI daemon (cli/daemon/)', { timeout: 120_000 }, () => {
  const runtimeDir = path.join(root, 'runtime');
  const bin = path.join(pkg, 'bin/agent-spaces.js');
  const CITY = `import { defineTool } from 'agent-spaces';

export const city = defineTool({
  name: 'city',
  functions: {
    where: {
      parameters: { type: 'object', properties: {} },
      returns: { type: 'object', properties: { city: { type: 'string' }, cwd: { type: 'string' } }, required: ['city', 'cwd'] },
      handler: async () => ({ city: process.env.DAEMON_TEST_CITY ?? 'unset', cwd: process.cwd() }),
    },
  },
});
`;

  function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const base: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtimeDir, ...extra };
    for (const name of ['NODE_OPTIONS', 'AGENT_SPACES_ENGINE', 'AGENT_SPACES_DAEMON']) if (!(name in extra)) delete base[name];
    return base;
  }

  /** The bin, as a person starts it (no Node flags: a command started with flags is never handed to the daemon). */
  function cli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd ?? root, env: options.env ?? env() });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.stdin.end(options.input ?? '');
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  async function status(): Promise<{ running: boolean; active: number; served: number; warm: number; pid: number; socket: string }> {
    const { stdout } = await cli(['daemon', 'status', '--json']);
    return JSON.parse(stdout) as { running: boolean; active: number; served: number; warm: number; pid: number; socket: string };
  }

  /** Runs `args` and asserts whether the daemon served it (its count of commands served). */
  async function runCounted(args: string[], options: Parameters<typeof cli>[1], served: boolean) {
    const before = (await status()).served;
    const result = await cli(args, options);
    expect((await status()).served - before, `served by the daemon: ${args.join(' ')}`).toBe(served ? 1 : 0);
    return result;
  }

  function citySpace(): string {
    const folder = path.join(root, 'daemon-space');
    if (existsSync(folder)) return folder;
    mkdirSync(path.join(folder, 'capabilities'), { recursive: true });
    mkdirSync(path.join(folder, 'node_modules'));
    symlinkSync(pkg, path.join(folder, 'node_modules', 'agent-spaces'), 'dir');
    writeFileSync(path.join(folder, 'capabilities', 'city.ts'), CITY);
    writeFileSync(path.join(folder, 'program.ts'), "import { city } from '@capabilities/city';\nexport default await city.where({});\n");
    writeFileSync(path.join(folder, 'bad.ts'), "const n: number = 'text';\nexport default n;\n");
    writeFileSync(
      path.join(folder, 'slow.ts'),
      "console.log('waiting');\nawait new Promise((resolve) => setTimeout(resolve, 60_000));\nexport default 1;\n",
    );
    return folder;
  }

  beforeAll(() => mkdirSync(runtimeDir, { mode: 0o700 }));
  afterAll(async () => {
    await cli(['daemon', 'stop']);
  });

  it("starts in a folder of the user's own, then serves `run` with the command line's environment, folder and exit code", async () => {
    const before = await cli(['daemon', 'status']);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain('not running');
    expect((await cli(['doctor'])).stdout).toMatch(/^daemon +not running \(`agent-spaces daemon start`/m);
    const started = await cli(['daemon', 'start', '--idle', '10', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const answer = JSON.parse(started.stdout) as { started: boolean; pid: number; socket: string };
    expect(answer.started).toBe(true);
    expect(path.dirname(answer.socket)).toBe(path.join(runtimeDir, 'agent-spaces'));
    expect(statSync(path.dirname(answer.socket)).mode & 0o777).toBe(0o700);
    expect(statSync(answer.socket).mode & 0o777).toBe(0o600);
    // A second start finds it running; the doctor says so.
    const again = await cli(['daemon', 'start', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ started: false, pid: answer.pid });
    const doctor = await cli(['doctor', '--json']);
    expect(JSON.parse(doctor.stdout)).toMatchObject({ daemon: { running: true, pid: answer.pid } });

    const folder = citySpace();
    for (const city of ['Bergen', 'Tromsø']) {
      const { code, stdout, stderr } = await runCounted(
        ['run', 'program.ts', '--json'],
        { cwd: folder, env: env({ DAEMON_TEST_CITY: city }) },
        true,
      );
      expect(code, stderr).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ success: true, result: { city, cwd: realpathSync(folder) } });
    }
    const failed = await runCounted(['run', 'bad.ts'], { cwd: folder }, true);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('TS2322');
    // The program on stdin: the command reads it, so the command line forwards its stdin.
    const piped = await runCounted(['run', '-', '--no-check', '--json'], { cwd: folder, input: 'export default 40 + 2;\n' }, true);
    expect(JSON.parse(piped.stdout)).toMatchObject({ success: true, result: 42 });
  });

  it('is not asked by a command started with another start-up environment, or with AGENT_SPACES_DAEMON=off', async () => {
    const folder = citySpace();
    for (const extra of [{ NODE_OPTIONS: '--max-old-space-size=900' }, { AGENT_SPACES_DAEMON: 'off' }] as Record<string, string>[]) {
      const { code, stdout } = await runCounted(
        ['run', 'program.ts', '--json', '--no-check'],
        { cwd: folder, env: env({ ...extra, DAEMON_TEST_CITY: 'Oslo' }) },
        false,
      );
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ result: { city: 'Oslo' } });
    }
  });

  it('passes Ctrl-C on (interrupted, 130), and stops a command whose command line was killed', async () => {
    const folder = citySpace();
    for (const how of ['SIGINT', 'SIGKILL'] as const) {
      const child = spawn(process.execPath, [bin, 'run', 'slow.ts', '--no-check'], { cwd: folder, env: env() });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.stdout.resume();
      await new Promise<void>((resolve) => {
        const look = (): void => (stderr.includes('waiting') ? resolve() : void setTimeout(look, 20));
        look();
      });
      expect((await status()).active).toBe(1);
      const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      child.kill(how);
      const code = await ended;
      if (how === 'SIGINT') {
        expect(code).toBe(130);
        expect(stderr).toContain('agent-spaces: interrupted');
      }
      // The warm process that ran it is gone: the daemon runs nothing.
      for (let tries = 0; ; tries++) {
        if ((await status()).active === 0) break;
        expect(tries).toBeLessThan(300);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });

  it('refuses a folder open to other users, and the command line then runs the command itself', async () => {
    const open = path.join(root, 'open-runtime');
    mkdirSync(path.join(open, 'agent-spaces'), { recursive: true, mode: 0o755 });
    chmodSync(path.join(open, 'agent-spaces'), 0o755);
    const started = await cli(['daemon', 'start'], { env: env({ XDG_RUNTIME_DIR: open }) });
    expect(started.code).not.toBe(0);
    expect(started.stderr).toContain('open to other users');
    const { code, stdout } = await cli(['run', 'program.ts', '--json', '--no-check'], {
      cwd: citySpace(),
      env: env({ XDG_RUNTIME_DIR: open }),
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ success: true });
  });

  it('stops on `daemon stop`, removing its socket', async () => {
    const { pid, socket } = await status();
    const stopped = await cli(['daemon', 'stop']);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`stopped (pid ${pid})`);
    for (let tries = 0; existsSync(socket) || alive(pid); tries++) {
      expect(tries).toBeLessThan(300);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await cli(['daemon', 'status'])).code).toBe(1);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// The package as a user outside this repository gets it, on one Node line (issues 11 and 23): the tarball
// `npm pack` makes, installed into a fresh folder under the system's temp directory — outside the
// repository, so nothing resolves from its node_modules — with that line's node and npm, as a user's
// package.json and the README say; then the README's own code there: the 30-second example (a defineTool
// capability → `capabilities build` → the model's program), a host file importing from 'agent-spaces'
// type-checked by tsc and run, `serve` driven by the MCP SDK's client over stdio, `doctor`; and the
// sandbox contract suite on that line (see below for which engines).
//
// Which sandbox engine a line gets is the point: npm 11 installs an optional dependency only where its
// `engines` match the running Node, so Node 22 gets isolated-vm 6 (prebuilt binary), 24 gets 6 and 7, 26
// gets 7, and Node 20 none (isolated-vm 5 has no binary; a user compiles it on purpose). Nothing is
// compiled: the user's package.json allows no install script. Install times are printed as the matrix row.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/example-space.js';
import { currentLine, lineEnvironment, nodeLine, type NodeLine } from '../support/node-line.js';
import { distIsFresh } from '../support/dist-fresh.js';
import { TEST_RUN_TEMP_ENV } from '../support/temp-dir.js';

const run = promisify(execFile);
/** npm, npx and the CLI on a busy machine: generous bounds that only catch a hang. */
export const STEP_TIMEOUT_MS = 10 * 60_000;
const PACKAGE = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as { version: string };

export interface Installed {
  line: NodeLine;
  work: string;
  space: string;
  env: NodeJS.ProcessEnv;
  readme: string;
  packedFiles: string[];
  installSeconds: number;
}

/** The newest Node line the package is tested on (test/e2e/package-node26.test.ts). */
const NEWEST_LINE = 26;

/** The engine `auto` picks on this line from a fresh install: the README's table says the same. */
export function expectedAutoEngine(major: number): 'isolated-vm' | 'quickjs' {
  return major >= 22 ? 'isolated-vm' : 'quickjs';
}

/**
 * Installs the packed package with `major`'s node and npm into a fresh folder, as the README says, and
 * registers the README's checks. Returns a getter for what was installed (for a file's own extra tests).
 */
export function describePackageOn(major: number, extra?: (installed: () => Installed) => void): void {
  describe(`the packed package on Node ${major}, installed into a folder outside the repository`, () => {
    let installed: Installed | undefined;
    const get = (): Installed => {
      if (!installed) throw new Error('the install in beforeAll failed: see its error');
      return installed;
    };

    beforeAll(async () => {
      // The line's Node (a download on a machine's first run) and the tarball (packed by the first file of
      // the run) do not depend on each other.
      const [line, tarball] = await Promise.all([nodeLine(major), packOnce()]);
      const work = await mkdtemp(path.join(tmpdir(), `agent-spaces-node${major}-`));
      const space = path.join(work, 'my-space');
      const readme = await readFile(path.join(REPO, 'README.md'), 'utf8');
      const env = lineEnvironment(line, process.env);
      await mkdir(path.join(space, 'capabilities'), { recursive: true });
      // What the README tells a user to do before installing: a package.json of type module. No install
      // script is allowed: isolated-vm's prebuilt binary loads without one.
      await writeFile(path.join(space, 'package.json'), JSON.stringify({ name: 'my-space', private: true, type: 'module' }, null, 2));
      const started = Date.now();
      await inFolder(env, space, 'npm', ['install', tarball.file, '--prefer-offline', '--no-audit', '--no-fund']);
      const installSeconds = (Date.now() - started) / 1000;
      const typescript = await versionOf('typescript');
      const nodeTypes = await versionOf('@types/node');
      await inFolder(env, space, 'npm', [
        'install',
        '-D',
        `typescript@${typescript}`,
        `@types/node@${nodeTypes}`,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ]);
      await writeFile(path.join(space, 'capabilities/weather.ts'), readmeBlock(readme, '// capabilities/weather.ts'));
      await writeFile(path.join(space, 'program.ts'), readmeBlock(readme, '// program.ts'));
      await writeFile(path.join(space, 'host.ts'), readmeBlock(readme, '// host.ts'));
      installed = { line, work, space, env, readme, packedFiles: tarball.files, installSeconds };
    }, 30 * 60_000);

    afterAll(async () => {
      if (installed) await rm(installed.work, { recursive: true, force: true });
    });

    const cli = (args: string[]): Promise<{ stdout: string; stderr: string }> =>
      inFolder(get().env, get().space, 'npx', ['--no', '--', 'agent-spaces', ...args]);

    it(
      'installs with nothing compiled; npx agent-spaces --version prints the package version',
      async () => {
        const { line, installSeconds, space } = get();
        // No isolated-vm was compiled: only prebuilt binaries (prebuilds/) or none.
        for (const name of ['isolated-vm', 'isolated-vm-6', 'isolated-vm-7']) {
          expect(existsSync(path.join(space, 'node_modules', name, 'build', 'Release')), `${name} compiled on Node ${line.major}`).toBe(
            false,
          );
        }
        const { stdout } = await cli(['--version']);
        expect(stdout.trim()).toBe(PACKAGE.version);
        console.log(`[matrix] Node ${line.version}: npm install <tarball> ${installSeconds.toFixed(0)} s`);
      },
      STEP_TIMEOUT_MS,
    );

    it(
      `doctor says which engine auto picks on Node ${major} (${expectedAutoEngine(major)}) and why`,
      async () => {
        const { stdout } = await cli(['doctor', '--json']);
        const report = JSON.parse(stdout) as {
          auto?: { worker?: { engine?: string } };
          engines?: Record<string, { available?: boolean; detail?: string }>;
        };
        expect(report.auto?.worker?.engine).toBe(expectedAutoEngine(major));
        expect(report.engines?.quickjs?.available).toBe(true);
        const text = await cli(['doctor']);
        expect(text.stdout).toContain(expectedAutoEngine(major));
        console.log(
          `[matrix] Node ${get().line.version}: auto → ${String(report.auto?.worker?.engine)} (isolated-vm: ${String(report.engines?.['isolated-vm']?.detail)})`,
        );
      },
      STEP_TIMEOUT_MS,
    );

    it(
      "runs the README's 30 seconds: a defineTool capability, capabilities build, the model's program",
      async () => {
        const build = await cli(['capabilities', 'build', '--json']);
        expect(JSON.parse(build.stdout)).toMatchObject({ errors: [], modules: expect.arrayContaining(['weather']) });
        expect(existsSync(path.join(get().space, '.agent-spaces/capabilities/weather/index.d.ts'))).toBe(true);
        const result = await cli(['run', 'program.ts', '--json']);
        expect(JSON.parse(result.stdout)).toMatchObject({ success: true, result: ['Lisbon', 'Tokyo'], calls: 3 });
      },
      STEP_TIMEOUT_MS,
    );

    it(
      'runs `run` in a warm process of `daemon start` (the same answer, counted by the daemon), and stops it',
      async () => {
        const { env, space, work } = get();
        // A folder of the test's own for the socket: no other run's daemon, none left behind.
        const runtime = path.join(work, 'runtime');
        await mkdir(runtime, { mode: 0o700 });
        const daemon = (args: string[]) =>
          inFolder(env, space, 'npx', ['--no', '--', 'agent-spaces', ...args], { XDG_RUNTIME_DIR: runtime });
        await daemon(['daemon', 'start', '--idle', '5']);
        try {
          const result = await daemon(['run', 'program.ts', '--json']);
          expect(JSON.parse(result.stdout)).toMatchObject({ success: true, result: ['Lisbon', 'Tokyo'], calls: 3 });
          const status = JSON.parse((await daemon(['daemon', 'status', '--json'])).stdout) as Record<string, unknown>;
          expect(status).toMatchObject({ running: true, served: 1 });
        } finally {
          await daemon(['daemon', 'stop']);
        }
      },
      STEP_TIMEOUT_MS,
    );

    for (const engine of ['quickjs', 'isolated-vm'] as const) {
      if (engine === 'isolated-vm' && expectedAutoEngine(major) !== 'isolated-vm') continue;
      it(
        `runs the program on the ${engine} engine when asked (--engine ${engine}), and says so with -v`,
        async () => {
          const result = await cli(['run', 'program.ts', '--json', '--engine', engine]);
          expect(JSON.parse(result.stdout)).toMatchObject({ success: true, result: ['Lisbon', 'Tokyo'], calls: 3 });
          const verbose = await cli(['run', 'program.ts', '-v', '--engine', engine]);
          expect(verbose.stderr).toContain(`[engine] ${engine}`);
        },
        STEP_TIMEOUT_MS,
      );
    }

    it(
      "type-checks the README's host file against the package's declarations (tsc) and runs it",
      async () => {
        const { env, space } = get();
        // The README's command: npx tsc --module nodenext --target es2022 --strict --skipLibCheck host.ts && node host.js
        const tsc = ['--no', '--', 'tsc', '--module', 'nodenext', '--target', 'es2022', '--strict', '--skipLibCheck'];
        // A wrong use of the API fails the check: the declarations are really read, not `any`.
        await writeFile(path.join(space, 'wrong.ts'), "import { openSpace } from 'agent-spaces';\nawait openSpace({ cwd: 42 });\n");
        const wrong = await inFolder(env, space, 'npx', [...tsc, '--noEmit', 'wrong.ts']).then(
          () => ({ stdout: 'tsc accepted wrong.ts' }),
          (error: unknown) => error as { stdout: string },
        );
        expect(wrong.stdout).toMatch(/wrong\.ts\(2,\d+\): error TS2322/);
        await inFolder(env, space, 'npx', [...tsc, 'host.ts']);
        const { stdout } = await inFolder(env, space, 'node', ['host.js']);
        expect(JSON.parse(stdout)).toEqual(['Lisbon', 'Tokyo']);
      },
      STEP_TIMEOUT_MS,
    );

    it(
      "serves the space over MCP with the README's Claude Desktop line, for the SDK's client over stdio",
      async () => {
        const { env, readme, space, work } = get();
        const line = claudeDesktopServer(readme, space);
        // Claude Desktop starts it from its own folder, with an environment of its own: not the space's.
        const transport = new StdioClientTransport({
          command: line.command,
          args: line.args,
          cwd: work,
          env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '' },
          stderr: 'pipe',
        });
        const client = new Client({ name: 'package-e2e', version: '1' });
        await client.connect(transport);
        try {
          expect(client.getServerVersion()).toMatchObject({ name: 'agent-spaces' });
          const tools = await client.listTools();
          expect(tools.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['execute_code', 'get_types', 'search_tools']));
          const program = readmeBlock(readme, '// program.ts');
          const result = (await client.callTool({ name: 'execute_code', arguments: { code: program } }, undefined, {
            timeout: STEP_TIMEOUT_MS,
          })) as CallToolResult;
          expect(result.isError).toBeFalsy();
          expect(result.structuredContent).toMatchObject({ success: true, result: ['Lisbon', 'Tokyo'], calls: 3 });
        } finally {
          await client.close();
        }
      },
      STEP_TIMEOUT_MS,
    );

    // The sandbox contract suite on this line (the whole suite, on this machine's line, runs it already):
    // this repository's vitest run by the line's node, with the isolated-vm this line's install got
    // (NODE_PATH: the fresh folder's node_modules, where the loader's require finds the aliases). On the
    // engine `auto` picks here; QuickJS's suite also on the newest line only: it is WebAssembly, the same
    // on every line (the main run has it on this machine's line, and every line runs a program on it
    // above), and each suite is ~40 s of both cores in a CI that is CPU-bound from start to end.
    if (major !== currentLine().major) {
      const engines = new Set([expectedAutoEngine(major), ...(major === NEWEST_LINE ? (['quickjs'] as const) : [])]);
      for (const engine of engines) {
        it(
          `passes the sandbox contract suite on the ${engine} engine (worker and in-process)`,
          async () => {
            const { line, space, env } = get();
            const files = ['runtime/sandbox-contract.test.ts', 'runtime/worker-pool/worker-pool-sandbox.test.ts'];
            const clean = Object.fromEntries(Object.entries(env).filter(([name]) => !/^(VITEST|TEST_RUN|AGENT_SPACES_TEST)/i.test(name)));
            const { stdout } = await inFolder(
              clean,
              REPO,
              line.node,
              [path.join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', ...files],
              {
                NODE_PATH: path.join(space, 'node_modules'),
                AGENT_SPACES_ENGINE: engine,
                // Colours off: the summary below is read as text.
                NO_COLOR: '1',
                FORCE_COLOR: '0',
              },
            );
            expect(stdout).toMatch(/Test Files\s+2 passed/);
            expect(stdout).not.toMatch(/\d+ failed/);
            const tests = /Tests\s+(\d+) passed/.exec(stdout)?.[1];
            console.log(`[matrix] Node ${line.version}: sandbox contract on ${engine}: ${String(tests)} tests passed`);
          },
          STEP_TIMEOUT_MS,
        );
      }
    }

    extra?.(get);
  });
}

/** Runs a command as the user would; the output is returned, a failure throws with it. */
export async function inFolder(
  env: NodeJS.ProcessEnv,
  cwd: string,
  command: string,
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ stdout: string; stderr: string }> {
  return run(command, args, { cwd, env: { ...env, ...extraEnv }, timeout: STEP_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 }).catch(
    (error: unknown) => {
      const failed = error as { stdout?: string; stderr?: string; code?: unknown; message?: string };
      // Keep stdout/stderr on the error (tests read them) and put them in the message (a failure says why).
      const message = `${command} ${args.join(' ')} failed (exit ${String(failed.code)}) in ${cwd}:\n${(failed.stderr ?? '').slice(-4000)}\n${(failed.stdout ?? '').slice(-2000)}`;
      throw Object.assign(new Error(message), { stdout: failed.stdout, stderr: failed.stderr, code: failed.code });
    },
  );
}

/**
 * `npm pack` of this repository, once per test run: the test files of every line share the tarball (a
 * lock folder in the run's temp folder; the first packs, the others wait for its report).
 */
export async function packOnce(): Promise<{ file: string; files: string[] }> {
  const parent = process.env[TEST_RUN_TEMP_ENV] ?? (await mkdtemp(path.join(tmpdir(), 'agent-spaces-pack-')));
  const folder = path.join(parent, 'packed');
  const report = path.join(folder, 'report.json');
  for (let waited = 0; ; waited += 1) {
    if (existsSync(report)) {
      const packed = JSON.parse(await readFile(report, 'utf8')) as { file: string; files: string[] } | { error: string };
      if ('error' in packed) throw new Error(`another test file of this run could not pack the package: ${packed.error}`);
      return packed;
    }
    try {
      await mkdir(folder);
      break;
    } catch {
      if (waited > 900) throw new Error(`waited 15 minutes for another test file to pack the package into ${folder}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  // `npm pack` runs prepare, which builds dist/ again (about a minute of CPU); when dist/ was built after
  // the last change to any tracked file (as in CI, where `npm ci` just built it), the build is not
  // repeated. A failure is reported to the files waiting for this one too (they fail at once, not after
  // 15 minutes).
  const written = async (result: { file: string; files: string[] } | { error: string }): Promise<void> => {
    await writeFile(`${report}.tmp`, JSON.stringify(result));
    await rename(`${report}.tmp`, report);
  };
  try {
    const fresh = await distIsFresh();
    const env = lineEnvironment(currentLine(), process.env);
    const { stdout } = await inFolder(env, REPO, 'npm', [
      'pack',
      '--json',
      '--pack-destination',
      folder,
      ...(fresh ? ['--ignore-scripts'] : []),
    ]);
    const result = packReport(stdout, folder);
    await written(result);
    return result;
  } catch (error) {
    await written({ error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

/**
 * The packed package (see {@link packOnce}: one pack per test run) unpacked into `folder` as an installed
 * package's folder, with the repository's node_modules beside it for its dependencies: for tests of
 * the installed CLI that need no `npm install` (its bundle, its daemon). Each caller gets a folder of
 * its own (a test may change the build in it). Returns `folder`.
 */
export async function unpackedPackage(folder: string): Promise<string> {
  const { file } = await packOnce();
  await mkdir(folder, { recursive: true });
  await run('tar', ['-xzf', file, '-C', folder, '--strip-components=1'], { timeout: STEP_TIMEOUT_MS });
  await symlink(path.join(REPO, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  return folder;
}

/**
 * The tarball and its files from `npm pack --json`'s stdout: the report is the JSON array at its end
 * (what the build prints to stdout when prepare runs comes before it).
 */
function packReport(stdout: string, folder: string): { file: string; files: string[] } {
  const start = stdout.search(/^\[\s*$/m);
  if (start < 0) throw new Error(`npm pack --json printed no report (a line "[" starting a JSON array):\n${stdout.slice(-4000)}`);
  const [packed] = JSON.parse(stdout.slice(start)) as { filename: string; files: { path: string }[] }[];
  if (!packed) throw new Error(`npm pack printed an empty report: ${stdout.slice(start)}`);
  return { file: path.join(folder, packed.filename), files: packed.files.map((file) => file.path) };
}

/** The version of a package this repository installed (the install then finds it in npm's cache). */
export async function versionOf(name: string): Promise<string> {
  return (JSON.parse(await readFile(path.join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The fenced code block of the README whose first line is `marker` (the file it shows). */
export function readmeBlock(readme: string, marker: string): string {
  const blocks = [...readme.matchAll(/```\w*\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const block = blocks.find((text) => text.startsWith(`${marker}\n`));
  if (block === undefined) throw new Error(`README.md has no code block starting with "${marker}"`);
  return block;
}

/** The README's Claude Desktop entry, with its placeholder folder replaced by the space. */
function claudeDesktopServer(readme: string, space: string): { command: string; args: string[] } {
  const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .find((text) => text.includes('"mcpServers"'));
  if (block === undefined) throw new Error('README.md has no ```json block with "mcpServers"');
  const config = JSON.parse(block.replaceAll('/path/to/my-space', space)) as {
    mcpServers: Record<string, { command: string; args: string[] }>;
  };
  const server = config.mcpServers['agent-spaces'];
  if (!server) throw new Error('the README\'s "mcpServers" has no "agent-spaces" entry');
  return server;
}

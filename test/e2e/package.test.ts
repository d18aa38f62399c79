// The package as a user outside this repository gets it (issue 11): `npm pack` (whose `prepare` builds
// dist/), the tarball installed into a fresh folder under the system's temp directory — outside the
// repository, so nothing resolves from its node_modules — and there the README's own code: the
// 30-second example (a defineTool capability → `npx agent-spaces capabilities build` → the model's
// program run), a host file importing from 'agent-spaces' type-checked by tsc and run, `--version`, and
// `serve` started with the README's Claude Desktop line and driven by the MCP SDK's client over stdio.
//
// Installing is made fast, honestly:
// - `--prefer-offline`: npm takes what its cache holds (the `npm ci` that set up this repository filled
//   it with the same packages) and asks the registry only for what is missing or unknown.
// - isolated-vm: its install script is `prebuild-install || node-gyp rebuild`. Its prebuilt binaries
//   live on GitHub, which CI cannot always reach, so it would compile from source (2–10 minutes). We
//   give prebuild-install, through its documented `local-prebuilds` setting
//   (npm_config_isolated_vm_local_prebuilds), a prebuild packed from the binary this repository's own
//   install already built for this very Node: the same file, so the install script runs and succeeds
//   without compiling. If that binary is missing, the install compiles as a user's would (slow, still correct).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/example-space.js';

const run = promisify(execFile);
/** npm, npx and the CLI on a busy machine: generous bounds that only catch a hang. */
const STEP_TIMEOUT_MS = 10 * 60_000;
const PACKAGE = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as { version: string };

interface PackedFile {
  path: string;
}

describe('the packed package, installed into a folder outside the repository', () => {
  let work: string;
  let space: string;
  let packedFiles: string[];
  let env: NodeJS.ProcessEnv;
  let readme: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'agent-spaces-package-'));
    space = path.join(work, 'my-space');
    readme = await readFile(path.join(REPO, 'README.md'), 'utf8');
    env = await installEnvironment(path.join(work, 'prebuilds'));

    const tarball = await pack(path.join(work, 'pack'));
    packedFiles = tarball.files;

    await mkdir(path.join(space, 'capabilities'), { recursive: true });
    // What the README tells a user to do before installing: a package.json of type module that allows
    // the install scripts of isolated-vm (its native addon) and esbuild.
    await writeFile(path.join(space, 'package.json'), JSON.stringify({ name: 'my-space', private: true, type: 'module', allowScripts: { 'isolated-vm': true, esbuild: true } }, null, 2));
    const typescript = await versionOf('typescript');
    const nodeTypes = await versionOf('@types/node');
    await npm(['install', tarball.file, `typescript@${typescript}`, `@types/node@${nodeTypes}`, '--prefer-offline', '--no-audit', '--no-fund'], space);

    await writeFile(path.join(space, 'capabilities/weather.ts'), readmeBlock(readme, '// capabilities/weather.ts'));
    await writeFile(path.join(space, 'program.ts'), readmeBlock(readme, '// program.ts'));
    await writeFile(path.join(space, 'host.ts'), readmeBlock(readme, '// host.ts'));
  }, 30 * 60_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** Runs a command in the space as the user would; the output is returned, a failure throws with it. */
  async function inSpace(command: string, args: string[], cwd = space): Promise<{ stdout: string; stderr: string }> {
    return run(command, args, { cwd, env, timeout: STEP_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 });
  }

  async function npm(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
    return inSpace('npm', args, cwd);
  }

  async function pack(destination: string): Promise<{ file: string; files: string[] }> {
    await mkdir(destination, { recursive: true });
    // `--json` keeps stdout to the report; the build's output (prepare) goes to stderr. `npm pack` runs
    // prepare, which builds dist/ again (about a minute of CPU); when dist/ was built after the last change
    // to any tracked file (as in CI, where `npm ci` just built it), the build is not repeated.
    const fresh = await distIsFresh();
    const { stdout } = await npm(['pack', '--json', '--pack-destination', destination, ...(fresh ? ['--ignore-scripts'] : [])], REPO);
    const [report] = JSON.parse(stdout) as { filename: string; files: PackedFile[] }[];
    if (!report) throw new Error(`npm pack printed no report: ${stdout}`);
    return { file: path.join(destination, report.filename), files: report.files.map((file) => file.path) };
  }

  /** The environment of every command: this process's, without what the `npm test` around us set for itself. */
  async function installEnvironment(prebuilds: string): Promise<NodeJS.ProcessEnv> {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_OPTIONS'));
    const prebuild = await packLocalPrebuild(prebuilds);
    return prebuild ? { ...clean, npm_config_isolated_vm_local_prebuilds: prebuilds } : clean;
  }

  it('ships dist, the bin and the docs, and no sources, tests, fixtures or benches (npm pack)', () => {
    expect(packedFiles).toEqual(expect.arrayContaining(['package.json', 'README.md', 'bin/agent-spaces.js', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js']));
    // What the runtime loads from beside itself at run time: the sandbox worker's and the type-check
    // worker's entries, and the studio's UI (built by Vite).
    expect(packedFiles).toEqual(expect.arrayContaining(['dist/runtime/worker-pool/sandbox-worker.js', 'dist/runtime/type-check/check-worker.js', 'dist/studio-ui/index.html']));
    const unexpected = packedFiles.filter(
      (file) => !/^(package\.json|README\.md|LICENSE|bin\/agent-spaces\.js|docs\/.+\.md)$/.test(file) && !/^dist\/.+\.(js|d\.ts)$/.test(file) && !file.startsWith('dist/studio-ui/'),
    );
    expect(unexpected).toEqual([]);
    expect(packedFiles.filter((file) => /(\.test\.|\.contract\.|__fixtures__|test-support|^test\/|^bench\/|\.tmp\/)/.test(file))).toEqual([]);
  });

  it('npx agent-spaces --version prints the package version', async () => {
    const { stdout } = await inSpace('npx', ['--no', '--', 'agent-spaces', '--version']);
    expect(stdout.trim()).toBe(PACKAGE.version);
  }, STEP_TIMEOUT_MS);

  it('npx agent-spaces demo says the demo is a checkout\'s, and what to run instead', async () => {
    const failed = (await inSpace('npx', ['--no', '--', 'agent-spaces', 'demo']).then(() => undefined, (error: unknown) => error)) as { code?: number; stderr?: string } | undefined;
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('agent-spaces demo runs the example space of an Agent Spaces checkout');
    expect(failed?.stderr).toContain('agent-spaces run <program.ts>');
  }, STEP_TIMEOUT_MS);

  it("runs the README's 30 seconds: a defineTool capability, capabilities build, the model's program", async () => {
    const build = await inSpace('npx', ['--no', '--', 'agent-spaces', 'capabilities', 'build', '--json']);
    expect(JSON.parse(build.stdout)).toMatchObject({ errors: [], modules: expect.arrayContaining(['weather']) });
    expect(existsSync(path.join(space, '.agent-spaces/capabilities/weather/index.d.ts'))).toBe(true);

    const result = await inSpace('npx', ['--no', '--', 'agent-spaces', 'run', 'program.ts', '--json']);
    expect(JSON.parse(result.stdout)).toMatchObject({ success: true, result: ['Lisbon', 'Tokyo'], calls: 3 });
  }, STEP_TIMEOUT_MS);

  it("type-checks the README's host file against the package's declarations (tsc) and runs it", async () => {
    // The README's command: npx tsc --module nodenext --target es2022 --strict --skipLibCheck host.ts && node host.js
    const tsc = ['--no', '--', 'tsc', '--module', 'nodenext', '--target', 'es2022', '--strict', '--skipLibCheck'];
    // A wrong use of the API fails the check: the declarations are really read, not `any`.
    await writeFile(path.join(space, 'wrong.ts'), "import { openSpace } from 'agent-spaces';\nawait openSpace({ cwd: 42 });\n");
    const wrong = await inSpace('npx', [...tsc, '--noEmit', 'wrong.ts']).then(
      () => ({ stdout: 'tsc accepted wrong.ts' }),
      (error: unknown) => error as { stdout: string },
    );
    expect(wrong.stdout).toMatch(/wrong\.ts\(2,\d+\): error TS2322/);

    await inSpace('npx', [...tsc, 'host.ts']);
    const { stdout } = await inSpace('node', ['host.js']);
    expect(JSON.parse(stdout)).toEqual(['Lisbon', 'Tokyo']);
  }, STEP_TIMEOUT_MS);

  it("serves the space over MCP with the README's Claude Desktop line, for the SDK's client over stdio", async () => {
    const line = claudeDesktopServer(readme, space);
    // Claude Desktop starts it from its own folder, with an environment of its own: not the space's.
    const transport = new StdioClientTransport({ command: line.command, args: line.args, cwd: work, env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '' }, stderr: 'pipe' });
    const client = new Client({ name: 'package-e2e', version: '1' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'agent-spaces' });
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['execute_code', 'get_types', 'search_tools']);
      const program = readmeBlock(readme, '// program.ts');
      const result = (await client.callTool({ name: 'execute_code', arguments: { code: program } }, undefined, { timeout: STEP_TIMEOUT_MS })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ success: true, result: ['Lisbon', 'Tokyo'], calls: 3 });
    } finally {
      await client.close();
    }
  }, STEP_TIMEOUT_MS);
});

/**
 * Whether dist/ (the library and the studio's UI) was built after every tracked file of the repository
 * last changed, and after every file that is not committed yet: then packing it again would build the same.
 */
async function distIsFresh(): Promise<boolean> {
  const built = [path.join(REPO, 'dist/index.js'), path.join(REPO, 'dist/studio-ui/index.html')];
  if (!built.every((file) => existsSync(file))) return false;
  const builtAt = Math.min(...(await Promise.all(built.map(async (file) => (await stat(file)).mtimeMs))));
  const { stdout } = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
  const files = stdout.split('\0').filter((file) => file !== '' && !file.startsWith('dist/'));
  const changedAt = await Promise.all(files.map(async (file) => (await stat(path.join(REPO, file)).catch(() => undefined))?.mtimeMs ?? 0));
  return changedAt.every((time) => time < builtAt);
}

/** The version of a package this repository installed (the install then finds it in npm's cache). */
async function versionOf(name: string): Promise<string> {
  return (JSON.parse(await readFile(path.join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * A prebuild-install tarball of the isolated-vm binary this repository's install built, named as
 * prebuild-install looks for it ({name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz;
 * libc is empty for glibc). Returns false when there is no binary to pack.
 */
async function packLocalPrebuild(folder: string): Promise<boolean> {
  const ivm = path.join(REPO, 'node_modules/isolated-vm');
  if (!existsSync(path.join(ivm, 'out/isolated_vm.node'))) return false;
  const { version } = JSON.parse(await readFile(path.join(ivm, 'package.json'), 'utf8')) as { version: string };
  await mkdir(folder, { recursive: true });
  const name = `isolated-vm-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await run('tar', ['-czf', path.join(folder, name), '-C', ivm, 'out/isolated_vm.node'], { timeout: STEP_TIMEOUT_MS });
  return true;
}

/** The fenced code block of the README whose first line is `marker` (the file it shows). */
function readmeBlock(readme: string, marker: string): string {
  const blocks = [...readme.matchAll(/```\w*\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const block = blocks.find((text) => text.startsWith(`${marker}\n`));
  if (block === undefined) throw new Error(`README.md has no code block starting with "${marker}"`);
  return block;
}

/** The README's Claude Desktop entry, with its placeholder folder replaced by the space. */
function claudeDesktopServer(readme: string, space: string): { command: string; args: string[] } {
  const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1] ?? '').find((text) => text.includes('"mcpServers"'));
  if (block === undefined) throw new Error('README.md has no ```json block with "mcpServers"');
  const config = JSON.parse(block.replaceAll('/path/to/my-space', space)) as { mcpServers: Record<string, { command: string; args: string[] }> };
  const server = config.mcpServers['agent-spaces'];
  if (!server) throw new Error('the README\'s "mcpServers" has no "agent-spaces" entry');
  return server;
}

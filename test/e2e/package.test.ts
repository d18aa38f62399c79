// The packed package on this machine's Node (the line the whole suite runs on), with what only needs
// checking once: what the tarball holds, the demo's message, and the way a Node 20 user gets the
// isolated-vm engine (isolated-vm 5, compiled on purpose). The other lines: package-node<N>.test.ts.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { REPO } from '../support/example-space.js';
import { currentLine, testToolCache } from '../support/node-line.js';
import { describePackageOn, inFolder, STEP_TIMEOUT_MS } from './package-on-line.js';

const run = promisify(execFile);

describePackageOn(currentLine().major, (installed) => {
  it('ships dist, the bin, the docs and the bundled eval suites, and no other sources, tests, fixtures or benches (npm pack)', () => {
    const { packedFiles } = installed();
    expect(packedFiles).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'bin/agent-spaces.js', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js']),
    );
    // What the runtime loads from beside itself at run time: the sandbox worker's and the type-check
    // worker's entries, and the studio's UI (built by Vite).
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'dist/runtime/worker-pool/sandbox-worker.js',
        'dist/runtime/type-check/check-worker.js',
        'dist/runtime/program/sucrase.cjs',
        'dist/studio-ui/index.html',
      ]),
    );
    const unexpected = packedFiles.filter(
      (file) =>
        !/^(package\.json|README\.md|LICENSE|bin\/agent-spaces\.js|docs\/.+\.md)$/.test(file) &&
        !/^dist\/.+\.(js|d\.ts|wasm)$/.test(file) &&
        // sucrase in one file (scripts/bundle-cli.mjs), loaded by runtime/program/compile-program.ts.
        file !== 'dist/runtime/program/sucrase.cjs' &&
        !file.startsWith('dist/studio-ui/') &&
        !/^eval\/suites\/[^/]+\/./.test(file),
    );
    expect(unexpected).toEqual([]);
    expect(packedFiles.filter((file) => /(\.test\.|\.contract\.|__fixtures__|test-support|^test\/|^bench\/|\.tmp\/)/.test(file))).toEqual(
      [],
    );
  });

  it(
    "npx agent-spaces demo says the demo is a checkout's, and what to run instead",
    async () => {
      const { env, space } = installed();
      const failed = (await inFolder(env, space, 'npx', ['--no', '--', 'agent-spaces', 'demo']).then(
        () => undefined,
        (error: unknown) => error,
      )) as { code?: number; stderr?: string } | undefined;
      expect(failed?.code).toBe(2);
      expect(failed?.stderr).toContain('agent-spaces demo runs the example space of an Agent Spaces checkout');
      expect(failed?.stderr).toContain('agent-spaces run <program.ts>');
    },
    STEP_TIMEOUT_MS,
  );

  // Beyond Node: the library under Bun and Deno (both from the npm registry), where no V8 addon loads —
  // the README's host file as it is (both run TypeScript), on QuickJS, in-process under Bun (its
  // node:child_process cannot hand a sandbox worker the fd 3 channel), in a worker process under Deno.
  for (const runtime of ['bun', 'deno'] as const) {
    it(
      `runs the README's host file under ${runtime} on the QuickJS engine`,
      async () => {
        const { env, space } = installed();
        const binary = await runtimeBinary(runtime);
        await inFolder(env, space, 'npx', ['--no', '--', 'agent-spaces', 'capabilities', 'build']);
        const args = runtime === 'bun' ? ['host.ts'] : ['run', '--allow-all', 'host.ts'];
        const { stdout } = await inFolder(env, space, binary, args);
        expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '')).toEqual(['Lisbon', 'Tokyo']);
      },
      STEP_TIMEOUT_MS,
    );
  }

  // Node 20 has no prebuilt isolated-vm: the README tells a user who wants that engine there to install
  // isolated-vm 5 with its install script allowed (it compiles). The compile is what the README measured;
  // here prebuild-install is given, through its documented local-prebuilds setting, the binary this
  // repository's own install already compiled for this very Node, so the install script runs and succeeds
  // without compiling again. Then auto picks isolated-vm and the README's program runs on it.
  if (currentLine().major === 20) {
    it(
      'on Node 20, npm install isolated-vm@5 (its script allowed) gives the isolated-vm engine',
      async () => {
        const { env, space, work } = installed();
        const prebuilds = path.join(work, 'prebuilds');
        const version = await packLocalPrebuild(prebuilds);
        const pkg = JSON.parse(await readFile(path.join(space, 'package.json'), 'utf8')) as Record<string, unknown>;
        await writeFile(path.join(space, 'package.json'), JSON.stringify({ ...pkg, allowScripts: { 'isolated-vm': true } }, null, 2));
        await inFolder(env, space, 'npm', ['install', `isolated-vm@${version}`, '--prefer-offline', '--no-audit', '--no-fund'], {
          npm_config_isolated_vm_local_prebuilds: prebuilds,
        });
        const doctor = JSON.parse((await inFolder(env, space, 'npx', ['--no', '--', 'agent-spaces', 'doctor', '--json'])).stdout) as {
          auto?: { worker?: { engine?: string } };
        };
        expect(doctor.auto?.worker?.engine).toBe('isolated-vm');
        const result = await inFolder(env, space, 'npx', [
          '--no',
          '--',
          'agent-spaces',
          'run',
          'program.ts',
          '--json',
          '--engine',
          'isolated-vm',
        ]);
        expect(JSON.parse(result.stdout)).toMatchObject({ success: true, result: ['Lisbon', 'Tokyo'], calls: 3 });
      },
      STEP_TIMEOUT_MS,
    );
  }
});

/** Bun or Deno from their npm packages, installed once into the tests' cache folder (the binary ships inside). */
async function runtimeBinary(name: 'bun' | 'deno'): Promise<string> {
  const prefix = testToolCache('runtimes', name);
  const binary = path.join(prefix, 'node_modules', '.bin', name);
  if (!existsSync(binary)) {
    await mkdir(prefix, { recursive: true });
    // Their postinstall only checks the platform package; the binary is in @oven/bun-linux-x64 / @deno/linux-x64.
    await run('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', name], {
      timeout: STEP_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
  }
  await run(binary, ['--version'], { timeout: STEP_TIMEOUT_MS });
  return binary;
}

/**
 * A prebuild-install tarball of the isolated-vm binary this repository's install built, named as
 * prebuild-install looks for it ({name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz;
 * libc is empty for glibc). Returns the version packed.
 */
async function packLocalPrebuild(folder: string): Promise<string> {
  const ivm = path.join(REPO, 'node_modules/isolated-vm');
  const binary = path.join(ivm, 'out/isolated_vm.node');
  if (!existsSync(binary))
    throw new Error(`${binary} is missing: this repository's npm install compiles isolated-vm 5 (a dev dependency) on Node 20`);
  const { version } = JSON.parse(await readFile(path.join(ivm, 'package.json'), 'utf8')) as { version: string };
  await mkdir(folder, { recursive: true });
  const name = `isolated-vm-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await run('tar', ['-czf', path.join(folder, name), '-C', ivm, 'out/isolated_vm.node'], { timeout: STEP_TIMEOUT_MS });
  return version;
}

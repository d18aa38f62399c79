// `agent-spaces --help`, `--version` and `<command> --help` are answered by the bin in its own process
// from cli/main alone: no command module, no part of the library, no package but the TypeScript loader.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packagesOf, recordResolvedModules, repoModulesOf } from '../test/support/resolved-modules.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(REPO, 'bin/agent-spaces.js');
/** What loading the sources costs without a build (tsx and what it runs on); a build needs none. */
const LOADER_PACKAGES = /^(tsx|esbuild|@esbuild\/.*|get-tsconfig|resolve-pkg-maps)$/;

async function loadedBy(args: string[]): Promise<{ stdout: string; modules: string[]; packages: string[] }> {
  const recorder = await recordResolvedModules();
  const { stdout } = await promisify(execFile)(process.execPath, [...recorder.nodeArgs, BIN, ...args], { cwd: REPO, env: { ...process.env, ...recorder.env } });
  const urls = await recorder.urls();
  return { stdout, modules: repoModulesOf(urls, REPO), packages: packagesOf(urls) };
}

describe('the CLI answers --help and --version without loading commands', () => {
  it.each(['--version', '--help', '-h', 'run --help', 'capabilities build --help', 'task --help'])('%s', async (line) => {
    const { stdout, modules, packages } = await loadedBy(line.split(' '));
    // In this process (the hook sees cli/main), and nothing of ours besides the bin, cli/main and package.json for the version.
    expect(modules).toEqual(line === '--version' ? ['bin/agent-spaces', 'cli/main', 'package.json'] : ['bin/agent-spaces', 'cli/main']);
    expect(packages.filter((name) => !LOADER_PACKAGES.test(name))).toEqual([]);
    expect(stdout).toMatch(line === '--version' ? /^\d+\.\d+\.\d+\n$/ : /Usage:/);
  }, 60_000);

  it('prints the version of package.json', async () => {
    const { stdout } = await loadedBy(['--version']);
    const { version } = (await import('../package.json', { with: { type: 'json' } })).default;
    expect(stdout.trim()).toBe(version);
  }, 60_000);

  it("prints a command's own usage and options after <command> --help", async () => {
    const { stdout } = await loadedBy(['run', '--help']);
    expect(stdout).toContain('agent-spaces run <file.ts | ->');
    expect(stdout).toContain('--no-check');
    expect(stdout).not.toContain('agent-spaces serve');
    expect(stdout).not.toContain('--budget-steps');
  }, 60_000);
});

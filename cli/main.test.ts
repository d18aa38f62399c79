// `agent-spaces --help`, `--version` and `<command> --help` are answered by the bin in its own process
// from cli/main and the command declarations alone: no part of the library, no package but the TypeScript loader.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packagesOf, recordResolvedModules, repoModulesOf } from '../test/support/resolved-modules.js';
import { findCommand, helpText, parseCommandLine } from './command-line.js';
import { loadCommands } from './commands/index.js';
import { OPTIONS, type OptionName } from './options.js';
import type { UsageError } from './usage-error.js';
import { FROM_DIST_ENV } from '../test/support/dist-fresh.js';

const COMMANDS = await loadCommands();

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(REPO, 'bin/agent-spaces.js');
/** What loading the sources costs without a build (tsx and what it runs on); a build needs none. */
const LOADER_PACKAGES = /^(tsx|esbuild|@esbuild\/.*|get-tsconfig|resolve-pkg-maps)$/;

async function loadedBy(args: string[]): Promise<{ stdout: string; modules: string[]; packages: string[] }> {
  const recorder = await recordResolvedModules();
  // The sources' modules are what is counted: not the build the test run may have chosen (AGENT_SPACES_FROM_DIST).
  const { stdout } = await promisify(execFile)(process.execPath, [...recorder.nodeArgs, BIN, ...args], {
    cwd: REPO,
    env: { ...process.env, ...recorder.env, [FROM_DIST_ENV]: '0' },
  });
  const urls = await recorder.urls();
  return { stdout, modules: repoModulesOf(urls, REPO), packages: packagesOf(urls) };
}

/** What answering --help and --version loads of ours, at the least: the bin, the command line and its error, the registry. */
const BASE_MODULES = ['bin/agent-spaces', 'cli/command-line', 'cli/commands/index', 'cli/main', 'cli/options', 'cli/usage-error'];
const COMMAND_MODULES = readdirSync(path.join(REPO, 'cli/commands'))
  .filter((file) => file.endsWith('.command.ts'))
  .map((file) => `cli/commands/${file.replace(/\.ts$/, '')}`);

/**
 * What a command line loads: --version no command declaration; the whole help every one; a command's
 * help only that command's (the registry loads the declarations a line names, cli/commands/index.ts).
 */
function expectedModules(line: string): string[] {
  if (line === '--version') return [...BASE_MODULES, 'package.json'].sort();
  if (line === '--help' || line === '-h') return [...BASE_MODULES, 'cli/command', ...COMMAND_MODULES].sort();
  const name = line.replace(/ (--help|-h)$/, '');
  return [...BASE_MODULES, 'cli/command', `cli/commands/${name.replace(' ', '-')}.command`].sort();
}

describe('the CLI answers --help and --version without loading commands', () => {
  it.each(['--version', '--help', '-h', 'run --help', 'capabilities build --help', 'task --help', 'agents serve -h'])(
    '%s',
    async (line) => {
      const { stdout, modules, packages } = await loadedBy(line.split(' '));
      // In this process (the hook sees cli/main), and nothing of ours besides the command line, the declarations it needs and package.json for the version.
      expect(modules).toEqual(expectedModules(line));
      expect(packages.filter((name) => !LOADER_PACKAGES.test(name))).toEqual([]);
      expect(stdout).toMatch(line === '--version' ? /^\d+\.\d+\.\d+\n$/ : /Usage:/);
    },
    120_000,
  );

  it('prints the version of package.json', async () => {
    const { stdout } = await loadedBy(['--version']);
    const { version } = (await import('../package.json', { with: { type: 'json' } })).default;
    expect(stdout.trim()).toBe(version);
  }, 120_000);

  it("prints a command's own usage and options after <command> --help", async () => {
    const { stdout } = await loadedBy(['run', '--help']);
    expect(stdout).toContain('agent-spaces run <file.ts | ->');
    expect(stdout).toContain('--no-check');
    expect(stdout).not.toContain('agent-spaces serve');
    expect(stdout).not.toContain('--budget-steps');
  }, 120_000);
});

const COMMAND_NAMES = COMMANDS.map((command) => command.name);

/** The flags a help text lists in its Options section (`-v, --verbose` counts as --verbose). */
function flagsInHelp(text: string): string[] {
  const options = text.slice(text.indexOf('\nOptions:\n'), text.indexOf('\n\nExit codes'));
  return [...options.matchAll(/^ {2}(?:-\w, )?--([a-z0-9-]+)/gm)].map((match) => match[1] ?? '').sort();
}

/** Whether the parser lets `command` take `option` (a value is given where the option takes one). */
function accepts(command: string, option: OptionName): boolean {
  const value = OPTIONS[option].type === 'string' ? ['x'] : [];
  try {
    parseCommandLine([...command.split(' '), `--${option}`, ...value], COMMANDS);
    return true;
  } catch (error) {
    if ((error as Error).message === `--${option} is not an option of "${command}"`) return false;
    throw error;
  }
}

describe('the help tells the truth', () => {
  it.each(COMMAND_NAMES)('%s --help lists exactly the options the parser takes for it', (command) => {
    const taken = (Object.keys(OPTIONS) as OptionName[]).filter((option) => accepts(command, option)).sort();
    expect(flagsInHelp(helpText(command, COMMANDS))).toEqual(taken);
    // And a command takes more than --help and --version (the check above would pass on nothing at all).
    expect(taken.length).toBeGreaterThan(2);
  });

  it('lists every command and every option in the whole help', () => {
    const whole = helpText(undefined, COMMANDS);
    for (const command of COMMAND_NAMES) expect(whole).toContain(`agent-spaces ${command}`);
    expect(flagsInHelp(whole)).toEqual(Object.keys(OPTIONS).sort());
  });

  it("answers <command> --help and -h with that command's help, exit code 0", () => {
    for (const command of COMMAND_NAMES) {
      for (const flag of ['--help', '-h']) {
        const line = parseCommandLine([...command.split(' '), flag], COMMANDS);
        expect(line).toEqual({ action: 'help', text: helpText(command, COMMANDS), exitCode: 0 });
        if (line.action === 'help') expect(line.text).toContain(`agent-spaces ${command}`);
      }
    }
  });

  it("lists a group's subcommands when it is given alone, with exit code 2 (as for no command at all)", () => {
    expect(parseCommandLine([], COMMANDS)).toEqual({ action: 'help', text: helpText(undefined, COMMANDS), exitCode: 2 });
    const alone = parseCommandLine(['capabilities'], COMMANDS);
    expect(alone).toMatchObject({ action: 'help', exitCode: 2 });
    if (alone.action === 'help') {
      expect(alone.text).toContain('agent-spaces capabilities build');
      expect(alone.text).toContain('agent-spaces capabilities list');
      expect(alone.text).toContain('agent-spaces capabilities sample <module.function>');
      expect(alone.text).not.toContain('agent-spaces run');
    }
    expect(parseCommandLine(['capabilities', '--help'], COMMANDS)).toMatchObject({ action: 'help', exitCode: 0 });
    expect(parseCommandLine(['agent'], COMMANDS)).toMatchObject({
      action: 'help',
      exitCode: 2,
      text: expect.stringContaining('agent-spaces agent serve'),
    });
    expect(() => parseCommandLine(['capabilities', 'biuld'], COMMANDS)).toThrow(
      'unknown subcommand "capabilities biuld" (build, sample, list or save)',
    );
    expect(() => parseCommandLine(['frobnicate', '--help'], COMMANDS)).toThrow('unknown command "frobnicate"');
  });

  it("says what is wrong with an option in the CLI's words, naming the command whose help to read", () => {
    const refusal = (argv: string[]) => {
      try {
        parseCommandLine(argv, COMMANDS);
      } catch (error) {
        return { message: (error as UsageError).message, command: (error as UsageError).command };
      }
      throw new Error(`${argv.join(' ')} was accepted`);
    };
    expect(refusal(['run', 'x.ts', '--frob'])).toEqual({ message: 'unknown option --frob', command: 'run' });
    expect(refusal(['-x'])).toEqual({ message: 'unknown option -x', command: undefined });
    expect(refusal(['capabilities', 'build', '--config'])).toEqual({
      message: '--config needs a value: --config <file>',
      command: 'capabilities build',
    });
    expect(refusal(['capabilities', 'list', '--json=yes'])).toEqual({ message: '--json takes no value', command: 'capabilities list' });
    expect(refusal(['agents', '--frob'])).toEqual({ message: 'unknown option --frob', command: 'agents' });
    expect(refusal(['serve', '--approve', 'all'])).toEqual({ message: '--approve is not an option of "serve"', command: 'serve' });
    expect(refusal(['store', 'purge'])).toEqual({ message: 'unknown subcommand "store purge" (prune)', command: 'store' });
  });

  it('gives a command its remaining arguments and options', () => {
    expect(parseCommandLine(['agent', 'serve', 'a', 'b', '--a2a', '0'], COMMANDS)).toEqual({
      action: 'command',
      command: findCommand('agent serve', COMMANDS),
      values: { a2a: '0' },
      args: ['a', 'b'],
    });
    expect(parseCommandLine(['run', 'x.ts', '-v', '--no-check'], COMMANDS)).toEqual({
      action: 'command',
      command: findCommand('run', COMMANDS),
      values: { verbose: true, 'no-check': true },
      args: ['x.ts'],
    });
    expect(parseCommandLine(['--version', 'run'], COMMANDS)).toEqual({ action: 'version' });
  });
});

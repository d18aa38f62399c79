// The command registry: every command module is registered, complete and light, and the help is made of
// registered commands only, each listing exactly the options its module declares and the parser takes.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineCommand, type Command } from '../command.js';
import { helpText, parseCommandLine } from '../command-line.js';
import { OPTIONS, type OptionName } from '../options.js';
import { commandsFor, loadCommands, REGISTRY } from './index.js';

const COMMANDS = await loadCommands();

const FOLDER = fileURLToPath(new URL('.', import.meta.url));
const MODULES = readdirSync(FOLDER).filter((file) => file.endsWith('.command.ts'));

/** What is wrong with a registry: a command without a name, synopsis, description or handler, or named twice. */
function problemsOf(commands: readonly Command[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const command of commands) {
    const name = typeof command.name === 'string' && command.name !== '' ? command.name : '(no name)';
    if (seen.has(name)) problems.push(`${name}: registered twice`);
    seen.add(name);
    if (!Array.isArray(command.synopsis) || command.synopsis.length === 0) problems.push(`${name}: no synopsis`);
    else if (!command.synopsis.every((line) => line.startsWith(`agent-spaces ${name}`)))
      problems.push(`${name}: a synopsis line does not start with "agent-spaces ${name}"`);
    if (typeof command.description !== 'string' || command.description === '') problems.push(`${name}: no description`);
    if (typeof command.run !== 'function') problems.push(`${name}: no handler`);
    if (!Array.isArray(command.options) || command.options.some((option) => !(option in OPTIONS)))
      problems.push(`${name}: an option that is not in cli/options.ts`);
  }
  return problems;
}

/** The commands a help text's usage lines name: each `  agent-spaces <words>` line, matched to the longest registered name. */
function commandsInHelp(text: string, commands: readonly Command[]): string[] {
  const usage = text.slice(text.indexOf('Usage:\n'), text.indexOf('\n\nOptions:\n'));
  return [...usage.matchAll(/^ {2}agent-spaces (.*)$/gm)].map((match) => {
    const words = (match[1] ?? '').split(' ');
    const named = [words.slice(0, 2).join(' '), words[0] ?? ''].find((name) => commands.some((command) => command.name === name));
    return named ?? `not a command: agent-spaces ${match[1] ?? ''}`;
  });
}

/** The flags a help text lists in its Options section (`-v, --verbose` counts as --verbose). */
function flagsInHelp(text: string): string[] {
  const options = text.slice(text.indexOf('\nOptions:\n'), text.indexOf('\n\nExit codes'));
  return [...options.matchAll(/^ {2}(?:-\w, )?--([a-z0-9-]+)/gm)].map((match) => match[1] ?? '').sort();
}

/** The options the parser takes for `command` (a value given where the option takes one). */
function parsedOptions(command: Command): string[] {
  return (Object.keys(OPTIONS) as OptionName[])
    .filter((option) => {
      try {
        parseCommandLine([...command.name.split(' '), `--${option}`, ...(OPTIONS[option].type === 'string' ? ['x'] : [])], COMMANDS);
        return true;
      } catch (error) {
        if ((error as Error).message === `--${option} is not an option of "${command.name}"`) return false;
        throw error;
      }
    })
    .sort();
}

describe('the command registry', () => {
  it('registers every command module beside it, once', async () => {
    expect(MODULES.length).toBeGreaterThan(10);
    for (const file of MODULES) {
      const { command } = (await import(/* @vite-ignore */ pathToFileURL(path.join(FOLDER, file)).href)) as { command: Command };
      expect(
        COMMANDS.filter((registered) => registered === command),
        `${file} in cli/commands/index.ts`,
      ).toHaveLength(1);
    }
    expect(COMMANDS).toHaveLength(MODULES.length);
  });

  it('holds only complete commands: name, synopsis, description, known options and a handler', () => {
    expect(problemsOf(COMMANDS)).toEqual([]);
    // The check fails on a command registered without a synopsis or a handler, or twice.
    const incomplete = { name: 'frob', synopsis: [], description: 'frobnicates', options: ['json'] } as unknown as Command;
    const run = COMMANDS.find((command) => command.name === 'run') as Command;
    expect(problemsOf([...COMMANDS, incomplete, run])).toEqual(['frob: no synopsis', 'frob: no handler', 'run: registered twice']);
  });

  it('lists in the help every registered command and nothing else', () => {
    const listed = commandsInHelp(helpText(undefined, COMMANDS), COMMANDS);
    expect(new Set(listed)).toEqual(new Set(COMMANDS.map((command) => command.name)));
    for (const group of ['capabilities', 'approvals', 'agent', 'agents', 'store']) {
      const members = COMMANDS.filter((command) => command.name.startsWith(`${group} `)).map((command) => command.name);
      expect(new Set(commandsInHelp(helpText(group, COMMANDS), COMMANDS)), group).toEqual(new Set(members));
    }
    // The check fails on a help that lists a command which is not registered.
    const withoutRun = COMMANDS.filter((command) => command.name !== 'run');
    expect(commandsInHelp(helpText(undefined, COMMANDS), withoutRun)).not.toContain('run');
    expect(commandsInHelp(helpText(undefined, COMMANDS), withoutRun)).toContain('not a command: agent-spaces run <file.ts | -> [options]');
  });

  it.each(COMMANDS.map((command) => [command.name, command] as const))(
    '%s: the options in its help are those its module declares and the parser takes',
    (_name, command) => {
      const declared = [...command.options, 'help', 'version'].sort();
      expect(flagsInHelp(helpText(command.name, COMMANDS))).toEqual(declared);
      expect(parsedOptions(command)).toEqual(declared);
    },
  );

  it('types a handler by the options it declares', () => {
    const command = defineCommand({
      name: 'example',
      synopsis: ['agent-spaces example'],
      description: 'an example',
      options: ['json'],
      run: async ({ values }) => {
        // @ts-expect-error -- --store is not an option of this command, so its handler cannot read it.
        const store: unknown = values.store;
        return values.json === true && store === undefined ? 0 : 1;
      },
    });
    expect(command.options).toEqual(['json']);
  });

  it.each(MODULES)('%s imports nothing of the library at its top (every --help loads it)', (file) => {
    const text = readFileSync(path.join(FOLDER, file), 'utf8');
    const loaded = [...text.matchAll(/^import (?!type )[^;]*?from '([^']+)';/gm)].map((match) => match[1]);
    expect(
      loaded.every((specifier) => specifier === '../command.js' || specifier === '../usage-error.js'),
      loaded.join(', '),
    ).toBe(true);
  });
});

describe('the registry loads the declarations a command line needs', () => {
  it('names each command as its module does, in the help order, once', async () => {
    expect(REGISTRY.map((entry) => entry.name)).toEqual(COMMANDS.map((command) => command.name));
    for (const entry of REGISTRY) expect((await entry.load()).name).toBe(entry.name);
  });

  it('loads the one command a line names, none for --version alone, all for the whole help or an unknown name', async () => {
    expect((await commandsFor(['run', 'x.ts', '--no-check'])).map((command) => command.name)).toEqual(['run']);
    expect((await commandsFor(['--cwd', 'run', 'capabilities', 'build'])).map((command) => command.name)).toEqual(['capabilities build']);
    expect((await commandsFor(['agents', 'serve', 'a'])).map((command) => command.name)).toEqual(['agents serve']);
    expect(await commandsFor(['--version'])).toEqual([]);
    for (const line of [[], ['--help'], ['capabilities'], ['capabilities', 'biuld'], ['frobnicate']])
      expect(
        (await commandsFor(line)).map((command) => command.name),
        line.join(' '),
      ).toEqual(COMMANDS.map((command) => command.name));
  });

  it('parses a named command with its own declaration alone as with all of them', async () => {
    for (const argv of [
      ['run', 'x.ts', '-v', '--no-check'],
      ['capabilities', 'build', '--json'],
      ['agent', 'serve', 'a', '--a2a', '0'],
    ]) {
      expect(parseCommandLine(argv, await commandsFor(argv))).toEqual(parseCommandLine(argv, COMMANDS));
    }
    expect(() => parseCommandLine(['run', '--a2a', '0'], COMMANDS)).toThrow('--a2a is not an option of "run"');
    expect(() => parseCommandLine(['run', '--a2a', '0'], [] as Command[])).toThrow('unknown command "run"');
  });
});

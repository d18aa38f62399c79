/**
 * The command line's machinery: parsing a command line against the registered commands (cli/commands/)
 * (the ones cli/commands/index.ts `commandsFor` loaded) and the option vocabulary (cli/options.ts), and the help made from the same declarations, so the help
 * cannot list an option the parser refuses or leave out one it takes. Node built-ins and command
 * declarations only: the bin answers --help and --version without loading the library.
 */
import { parseArgs } from 'node:util';
import type { Command } from './command.js';
import { OPTIONS, type OptionName, type OptionSpec, type OptionValues } from './options.js';
import { UsageError } from './usage-error.js';

export type CommandLine =
  | { action: 'help'; text: string; exitCode: 0 | 2 }
  | { action: 'version' }
  | { action: 'command'; command: Command; values: OptionValues; args: string[] };

/** The options every command takes. */
const EVERYWHERE: OptionName[] = ['help', 'version'];

/**
 * What the command line asks for: a help text (with the exit code it ends with), the version, or a
 * command with its options and its remaining arguments. Throws `UsageError` for an unknown option, an
 * option the command does not take, or an unknown command; a group without its subcommand gets the
 * group's help with exit code 2, as no command at all gets the whole help.
 */
export function parseCommandLine(argv: string[], commands: readonly Command[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, tokens: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError(parseArgsMessage(error as Error & { code?: string }), { ...commandNamedIn(argv, commands) });
  }
  const { positionals, tokens } = parsed;
  const values = parsed.values as OptionValues;
  if (values.version === true) return { action: 'version' };
  const wantsHelp = values.help === true;
  const [first, second] = positionals;
  if (first === undefined) return { action: 'help', text: helpText(undefined, commands), exitCode: wantsHelp ? 0 : 2 };
  const isGroup = groupsOf(commands).includes(first);
  if (isGroup && second === undefined) return { action: 'help', text: helpText(first, commands), exitCode: wantsHelp ? 0 : 2 };
  const command = findCommand(isGroup ? `${first} ${second ?? ''}` : first, commands);
  if (command === undefined) throw unknownCommand(first, isGroup ? second : undefined, commands);
  if (wantsHelp) return { action: 'help', text: helpText(command.name, commands), exitCode: 0 };
  checkOptions(
    command,
    tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : [])),
  );
  return { action: 'command', command, values, args: positionals.slice(command.name.split(' ').length) };
}

/** The command of that name (`capabilities build`), if one is registered. */
export function findCommand(name: string, commands: readonly Command[]): Command | undefined {
  return commands.find((command) => command.name === name);
}

/** `unknown command "x" (did you mean …)`, or for a group `unknown subcommand "group x" (its subcommands)`. */
function unknownCommand(first: string, second: string | undefined, commands: readonly Command[]): UsageError {
  if (second !== undefined) {
    const subcommands = commandsOf(first, commands).map((command) => command.name.slice(first.length + 1));
    return new UsageError(`unknown subcommand "${first} ${second}" (${listOfChoices(subcommands)})`, { command: first });
  }
  const firstWords = [...new Set(commands.map((command) => firstWordOf(command.name)))];
  return new UsageError(`unknown command "${first}"${didYouMean(first, firstWords)}`);
}

/** The options `command` takes, --help and --version included. */
export function optionsOf(command: Command): OptionName[] {
  return [...command.options, ...EVERYWHERE];
}

/** An option given to a command that does not take it is an error, not silently ignored. */
function checkOptions(command: Command, given: string[]): void {
  const allowed: string[] = optionsOf(command);
  const stray = given.find((name) => !allowed.includes(name));
  if (stray !== undefined) throw new UsageError(`--${stray} is not an option of "${command.name}"`, { command: command.name });
}

/**
 * What node:util's parseArgs refused, said the CLI's way: its "Unknown option '--x'. To specify a
 * positional argument starting with a '-', …" becomes `unknown option --x`, a missing value names the
 * value the option takes. Anything else keeps parseArgs' words.
 */
function parseArgsMessage(error: Error & { code?: string }): string {
  const quoted = /'(-[^' ]*)/.exec(error.message)?.[1];
  if (quoted === undefined) return error.message;
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return `unknown option ${quoted}${quoted.startsWith('--') ? didYouMean(quoted.slice(2), Object.keys(OPTIONS), '--') : ''}`;
  const name = quoted.replace(/^--?/, '');
  const spec: OptionSpec | undefined = name in OPTIONS ? OPTIONS[name as OptionName] : undefined;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && spec !== undefined) {
    return spec.type === 'string' ? `--${name} needs a value: --${name} ${spec.value ?? '<value>'}` : `--${name} takes no value`;
  }
  return error.message;
}

/** The command (or group) a command line names, read leniently (it did not parse): its help is the one to point at. */
function commandNamedIn(argv: string[], commands: readonly Command[]): { command?: string } {
  const [first, second] = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS }).positionals;
  if (first === undefined) return {};
  if (groupsOf(commands).includes(first)) {
    return findCommand(`${first} ${second ?? ''}`, commands) ? { command: `${first} ${second ?? ''}` } : { command: first };
  }
  return findCommand(first, commands) ? { command: first } : {};
}

/** ` (did you mean "run"?)` for a name a typo or two away from one of `names` (or the start of one); else nothing. */
export function didYouMean(given: string, names: string[], prefix = ''): string {
  const scored = names.map((name) => ({ name, distance: name.startsWith(given) && given.length >= 2 ? 0 : editDistance(given, name) }));
  const best = scored
    .filter(({ distance }) => distance <= Math.min(2, Math.floor(given.length / 2)))
    .sort((a, b) => a.distance - b.distance)[0];
  return best === undefined ? '' : ` (did you mean "${prefix}${best.name}"?)`;
}

/** Edits (insert, delete, substitute, swap two neighbours) between two words. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** `a`, `a or b`, `a, b or c`. */
function listOfChoices(names: string[]): string {
  return names.length <= 2 ? names.join(' or ') : `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
}

/** The first word of a command's name: its group, or the command itself. */
function firstWordOf(name: string): string {
  return name.split(' ')[0] ?? name;
}

/** The groups of subcommands (`capabilities`): first words of the commands named with two. */
function groupsOf(commands: readonly Command[]): string[] {
  return [...new Set(commands.filter((command) => command.name.includes(' ')).map((command) => firstWordOf(command.name)))];
}

function commandsOf(group: string, commands: readonly Command[]): Command[] {
  return commands.filter((command) => command.name.startsWith(`${group} `));
}

const FOOTER = `Exit codes: 0 success, 1 the build or run failed, 2 bad usage or configuration, 130 interrupted (143: SIGTERM).
Node must run with --no-node-snapshot where an isolate is created; the agent-spaces bin does that for you.`;

/**
 * The whole help (no topic), a group's (`capabilities`: its subcommands), or one command's: its usage
 * and exactly the options it takes.
 */
export function helpText(topic: string | undefined, commands: readonly Command[]): string {
  const single = topic === undefined ? undefined : findCommand(topic, commands);
  const shown = topic === undefined ? commands : single ? [single] : commandsOf(topic, commands);
  const usage = shown.flatMap((command) => [...command.synopsis.map((line) => `  ${line}`), ...indent(command.description, 6)]);
  const taken = new Set(shown.flatMap((command) => optionsOf(command)));
  const options = (Object.keys(OPTIONS) as OptionName[])
    .filter((name) => taken.has(name))
    .flatMap((name) => optionHelp(name, topic === undefined ? commands : undefined));
  const title = topic === undefined ? 'agent-spaces — let an LLM act by writing TypeScript against typed @capabilities/* modules\n\n' : '';
  return `${title}Usage:\n${usage.join('\n')}\n\nOptions:\n${options.join('\n')}\n\n${FOOTER}`;
}

/** Where option descriptions start: after the longest flag. */
const OPTION_COLUMN = 4 + Math.max(...(Object.keys(OPTIONS) as OptionName[]).map((name) => flagOf(name).length));

function flagOf(name: OptionName): string {
  const spec: OptionSpec = OPTIONS[name];
  return `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`;
}

/** An option's lines; in the whole help (given all `commands`), prefixed with the commands that take it (unless all do). */
function optionHelp(name: OptionName, commands: readonly Command[] | undefined): string[] {
  const spec: OptionSpec = OPTIONS[name];
  let which = '';
  if (commands !== undefined) {
    const users = new Set(commands.filter((command) => optionsOf(command).includes(name)).map((command) => firstWordOf(command.name)));
    if (users.size < new Set(commands.map((command) => firstWordOf(command.name))).size) which = `(${[...users].join(', ')}) `;
  }
  const [head = '', ...rest] = `${which}${spec.help}`.split('\n');
  return [`  ${flagOf(name).padEnd(OPTION_COLUMN - 2)}${head}`, ...rest.map((line) => `${' '.repeat(OPTION_COLUMN)}${line}`)];
}

function indent(text: string, spaces: number): string[] {
  return text.split('\n').map((line) => `${' '.repeat(spaces)}${line}`);
}

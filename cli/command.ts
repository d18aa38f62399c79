/**
 * What a command module declares (one file under cli/commands/, `<name>.command.ts`, registered in
 * cli/commands/index.ts): how it is called, what it does, the options it takes and the handler that runs
 * it. The help and the parser are made from these declarations (cli/command-line.ts).
 *
 * Every --help loads every command module, so a command module imports nothing of the library at its top:
 * its handler loads what it needs (`await import(…)`) when the command runs.
 */
import type { OptionName, OptionValues } from './options.js';

/** What a handler gets, after the checks every command shares (cli/main.ts). */
export interface CommandInput<O extends OptionName> {
  /** The options given, of those the command takes. */
  values: Pick<OptionValues, O>;
  /** The arguments after the command's name. */
  args: string[];
  /** --cwd (a folder that exists) or the current directory. */
  cwd: string;
  /** What most commands pass on: the folder, --config (a file that exists) and --json. */
  common: { cwd: string; config?: string; json: boolean };
}

export interface Command<O extends OptionName = OptionName> {
  /** `run`; a group's subcommand is `<group> <sub>` (`capabilities build`). */
  name: string;
  /** How it is called, one line per form, each starting with `agent-spaces <name>`. */
  synopsis: readonly string[];
  description: string;
  /** The options it takes besides --help and --version (cli/options.ts). */
  options: readonly O[];
  /**
   * Servers, the studio and workers stop on their own terms on Ctrl-C (they finish what they hold
   * first); any other command ends at once with "interrupted" (cli/interrupt.ts).
   */
  stopsItself?: boolean;
  /**
   * Whether running it in this process would make an isolate here that needs Node's --no-node-snapshot
   * (which this process lacks); the bin then runs it in a Node started with the flag. A command without
   * it is always started with the flag by the bin.
   */
  needsIsolateFlag?(input: CommandInput<O>): Promise<boolean>;
  /** Checks the arguments, loads what the command needs and runs it; resolves to the exit code. */
  run(input: CommandInput<O>): Promise<number>;
}

/** A command declaration, typed so that its handler sees exactly the options it declares. */
export function defineCommand<const O extends OptionName>(command: Command<O>): Command<O> {
  return command;
}

/** The given string options that were set. */
export function pick<K extends string>(values: Partial<Record<K, unknown>>, keys: K[]): Partial<Record<K, string>> {
  const picked: Partial<Record<K, string>> = {};
  for (const key of keys) if (typeof values[key] === 'string') picked[key] = values[key];
  return picked;
}

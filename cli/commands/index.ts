/**
 * Every command of the CLI, in the order the help lists them. A command is one module beside this file
 * (`<name>.command.ts`, see cli/command.ts) and one line here: its name and how to load it. Only the
 * modules a command line needs are loaded (the one it names; all of them for the whole help or a name
 * that matches none), so a command's start does not pay for the others' declarations.
 */
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { OPTIONS } from '../options.js';

export interface RegisteredCommand {
  /** The command's name, as its module declares it (`capabilities build`): checked by index.test.ts. */
  name: string;
  load(): Promise<Command>;
}

function registered(name: string, load: () => Promise<{ command: Command }>): RegisteredCommand {
  return { name, load: async () => (await load()).command };
}

export const REGISTRY: readonly RegisteredCommand[] = [
  registered('capabilities build', () => import('./capabilities-build.command.js')),
  registered('capabilities sample', () => import('./capabilities-sample.command.js')),
  registered('capabilities list', () => import('./capabilities-list.command.js')),
  registered('capabilities save', () => import('./capabilities-save.command.js')),
  registered('run', () => import('./run.command.js')),
  registered('daemon start', () => import('./daemon-start.command.js')),
  registered('daemon stop', () => import('./daemon-stop.command.js')),
  registered('daemon status', () => import('./daemon-status.command.js')),
  registered('doctor', () => import('./doctor.command.js')),
  registered('worker', () => import('./worker.command.js')),
  registered('store prune', () => import('./store-prune.command.js')),
  registered('approvals list', () => import('./approvals-list.command.js')),
  registered('approvals approve', () => import('./approvals-approve.command.js')),
  registered('approvals deny', () => import('./approvals-deny.command.js')),
  registered('trace', () => import('./trace.command.js')),
  registered('serve', () => import('./serve.command.js')),
  registered('task', () => import('./task.command.js')),
  registered('agent serve', () => import('./agent-serve.command.js')),
  registered('agents serve', () => import('./agents-serve.command.js')),
  registered('studio', () => import('./studio.command.js')),
  registered('demo', () => import('./demo.command.js')),
  registered('eval', () => import('./eval.command.js')),
];

/** Every registered command, loaded, in the registry's order. */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(REGISTRY.map((entry) => entry.load()));
}

/**
 * The commands parsing `argv` needs: the one it names (`run`, `capabilities build`), none when it asks
 * only for --version, and every command otherwise (the whole help, a group's help, a name that matches
 * none and so needs the names and suggestions of all).
 */
export async function commandsFor(argv: string[]): Promise<Command[]> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS });
  const [first, second] = positionals;
  if (first === undefined) return values.version === true ? [] : loadCommands();
  const named = REGISTRY.find((entry) => entry.name === `${first} ${second ?? ''}`) ?? REGISTRY.find((entry) => entry.name === first);
  return named === undefined ? loadCommands() : [await named.load()];
}

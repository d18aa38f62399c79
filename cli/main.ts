import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseCommandLine, type CommandLine } from './command-line.js';
import { commandsFor } from './commands/index.js';
import type { OptionValues } from './options.js';
import type { Command } from './command.js';
import { UsageError } from './usage-error.js';
// Nothing else is imported up front: --help and --version answer from the command declarations without
// loading the library, and each command's handler loads what it needs (and with it the library) when it runs.

/** The version in package.json (found by the package's own name, from the sources and from dist/ alike). */
function version(): string {
  const file = fileURLToPath(import.meta.resolve('agent-spaces/package.json'));
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** What the bin offers when it runs a command in its own process (started without --no-node-snapshot). */
export interface MainOptions {
  /** Runs the command line in a new Node started with --no-node-snapshot; resolves to its exit code. */
  relaunch?: () => Promise<number>;
}

export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  ignoreClosedStdout();
  let line: CommandLine;
  try {
    line = parseCommandLine(argv, await commandsFor(argv));
  } catch (error) {
    return (await import('./output.js')).reportError(error);
  }
  switch (line.action) {
    case 'version':
      process.stdout.write(`${version()}\n`);
      return 0;
    case 'help':
      process.stdout.write(`${line.text}\n`);
      return line.exitCode;
    case 'command': {
      const { command } = line;
      // Before any command's module loads: on Node ≥ 22.1 the next start reads their compiled code.
      (await import('./compile-cache.js')).enableCompileCache();
      // Servers, the studio and workers stop on their own terms (they finish what they hold first).
      if (command.stopsItself !== true) (await import('./interrupt.js')).exitOnInterrupt();
      try {
        return await runCommand(command, line.values, line.args, options.relaunch);
      } catch (error) {
        return (await import('./output.js')).reportError(error, command.name);
      }
    }
  }
}

/** Runs the command's handler after the checks every command shares, which need no library. */
async function runCommand(command: Command, values: OptionValues, args: string[], relaunch?: () => Promise<number>): Promise<number> {
  const { isFile, isFolder } = await import('./file-kind.js');
  if (values.cwd !== undefined && !isFolder(values.cwd)) throw new UsageError(`--cwd ${values.cwd}: no such folder`);
  const cwd = values.cwd ?? process.cwd();
  // The config is looked for from --cwd, whereas a program's path is the shell's: say where it looked.
  if (values.config !== undefined && !isFile(path.resolve(cwd, values.config))) {
    throw new UsageError(
      `--config ${values.config}: no file at ${path.resolve(cwd, values.config)}${values.cwd === undefined ? '' : ' (the path is relative to --cwd)'}`,
    );
  }
  const common = { cwd, ...(values.config ? { config: values.config } : {}), json: values.json === true };
  const input = { values, args, cwd, common };
  if (relaunch !== undefined && (command.needsIsolateFlag === undefined || (await command.needsIsolateFlag(input)))) {
    (await import('./interrupt.js')).handOverInterrupts();
    return relaunch();
  }
  // After the relaunch decision: the process that runs the command says it, once.
  if (values.config === undefined) await warnOfSeveralConfigFiles(cwd);
  return command.run(input);
}

/** Two config files in one folder (a .ts written next to an older .json): one is used; say which. */
async function warnOfSeveralConfigFiles(cwd: string): Promise<void> {
  const { CONFIG_FILES } = await import('../config/index.js');
  const { isFile } = await import('./file-kind.js');
  const present = CONFIG_FILES.filter((name) => isFile(path.join(cwd, name)));
  if (present.length < 2) return;
  const [used, ...ignored] = present;
  process.stderr.write(
    `agent-spaces: warning: ${present.join(' and ')} are both in ${cwd}: using ${used}, ignoring ${ignored.join(' and ')} (delete the one you do not mean, or pass --config)\n`,
  );
}

let stdoutGuarded = false;

/**
 * A reader that stops early (`agent-spaces capabilities list | head`) closes the pipe: what is left to
 * print is no longer wanted, which is no error. Without this, Node throws EPIPE from the next write, a
 * stack trace in place of a normal ending; the command still finishes (and closes its space) as usual.
 */
function ignoreClosedStdout(): void {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // EPIPE the first time; a later write to the stream it destroyed is ERR_STREAM_DESTROYED.
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

/** Whether this module is the program Node was started with (the bin may import it to answer --help or --version in its own process). */
function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return pathToFileURL(realpathSync(path.resolve(entry))).href === import.meta.url;
  } catch {
    return false;
  }
}

if (isEntryPoint()) process.exitCode = await main(process.argv.slice(2));

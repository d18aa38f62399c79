import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseCommandLine, type CommandLine, type OptionValues } from './command-line.js';
import { UsageError } from './usage-error.js';
// Nothing else is imported up front: --help and --version answer without loading the library, and each
// command loads its own module (and with it the library) only when it runs.

/** The version in package.json (found by the package's own name, from the sources and from dist/ alike). */
function version(): string {
  const file = fileURLToPath(import.meta.resolve('agent-spaces/package.json'));
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export async function main(argv: string[]): Promise<number> {
  ignoreClosedStdout();
  let line: CommandLine;
  try {
    line = parseCommandLine(argv);
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
    case 'command':
      // Before any command's module loads: on Node ≥ 22.1 the next start reads their compiled code.
      (await import('./compile-cache.js')).enableCompileCache();
      // Servers, the studio and workers stop on their own terms (they finish what they hold first).
      if (!STOPS_ITSELF.has(line.command)) (await import('./interrupt.js')).exitOnInterrupt();
      try {
        return await runCommand(line.command, line.values, line.args);
      } catch (error) {
        return (await import('./output.js')).reportError(error, line.command);
      }
  }
}

const STOPS_ITSELF = new Set<string>(['serve', 'studio', 'worker', 'agent serve', 'agents serve']);

/** Calls the command's module with what it needs; checks of arguments that need no library come first. */
async function runCommand(
  command: Extract<CommandLine, { action: 'command' }>['command'],
  values: OptionValues,
  args: string[],
): Promise<number> {
  const { isFile, isFolder } = await import('./file-kind.js');
  if (values.cwd !== undefined && !isFolder(values.cwd)) throw new UsageError(`--cwd ${values.cwd}: no such folder`);
  const cwd = values.cwd ?? process.cwd();
  // The config is looked for from --cwd, whereas a program's path is the shell's: say where it looked.
  if (values.config !== undefined && !isFile(path.resolve(cwd, values.config))) {
    throw new UsageError(
      `--config ${values.config}: no file at ${path.resolve(cwd, values.config)}${values.cwd === undefined ? '' : ' (the path is relative to --cwd)'}`,
    );
  }
  if (values.config === undefined) await warnOfSeveralConfigFiles(cwd);
  const common = { cwd, ...(values.config ? { config: values.config } : {}), json: values.json === true };
  const [first, ...rest] = args;
  switch (command) {
    case 'capabilities build':
    case 'capabilities list': {
      if (args.length > 0) throw new UsageError(`unexpected argument "${args.join(' ')}" (${command} takes options only)`);
      const { buildCommand, listCommand } = await import('./commands/capabilities.js');
      return command === 'capabilities build'
        ? buildCommand({ ...common, force: values.force === true })
        : listCommand({ ...common, force: false });
    }
    case 'capabilities sample': {
      if (!first)
        throw new UsageError("capabilities sample needs a function: agent-spaces capabilities sample <module.function> [--args '<json>']");
      if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (quote the arguments: --args '{"a": 1}')`);
      const { sampleCommand } = await import('./commands/sample.js');
      return sampleCommand({ ...common, id: first, ...pick(values, ['args', 'approve']) });
    }
    case 'run': {
      if (!first) throw new UsageError('run needs a program: agent-spaces run <file.ts | ->');
      if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
      let timeoutMs: number | undefined;
      if (values.timeout !== undefined) {
        timeoutMs = Number(values.timeout);
        if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
          throw new UsageError(`--timeout takes a positive number of milliseconds (got "${values.timeout}")`);
      }
      // TypeScript loads in its worker thread while this one loads the library and starts the space.
      // (The file itself, not runtime/index.js: that would load the whole runtime first, which is what this overlaps.)
      if (values['no-check'] !== true) (await import('../runtime/type-check.js')).warmTypeChecker();
      const { runCommand: run } = await import('./commands/run.js');
      return run({
        ...common,
        file: first,
        check: values['no-check'] !== true,
        verbose: values.verbose === true,
        ...(values.approve !== undefined ? { approve: values.approve } : {}),
        ...(values.studio !== undefined ? { studio: values.studio } : {}),
        ...(values.isolation !== undefined ? { isolation: values.isolation } : {}),
        ...(values.engine !== undefined ? { engine: values.engine } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(values.store !== undefined ? { store: values.store } : {}),
      });
    }
    case 'worker': {
      if (first) throw new UsageError(`unexpected argument "${first}" (worker takes options only)`);
      const { workerCommand } = await import('./commands/worker.js');
      return workerCommand({
        cwd,
        ...(values.config ? { config: values.config } : {}),
        ...pick(values, ['store', 'concurrency', 'id']),
        verbose: values.verbose === true,
      });
    }
    case 'store prune': {
      if (args.length > 0) throw new UsageError(`unexpected argument "${args.join(' ')}" (store prune takes options only)`);
      const { storePruneCommand } = await import('./commands/store.js');
      return storePruneCommand({
        ...common,
        ...pick(values, ['store']),
        ...(values['older-than'] !== undefined ? { olderThan: values['older-than'] } : {}),
      });
    }
    case 'approvals list':
    case 'approvals approve':
    case 'approvals deny': {
      const { approvalsCommand } = await import('./commands/approvals.js');
      return approvalsCommand({
        ...common,
        action: command.slice('approvals '.length) as 'list' | 'approve' | 'deny',
        args,
        all: values.all === true,
        ...pick(values, ['store', 'reason']),
      });
    }
    case 'trace': {
      if (!first || rest.length > 0) throw new UsageError('trace takes one run or task id: agent-spaces trace <id> --store <url>');
      const { traceCommand } = await import('./commands/trace.js');
      return traceCommand({ cwd, ...(values.config ? { config: values.config } : {}), ...pick(values, ['store']), id: first });
    }
    case 'doctor': {
      if (first) throw new UsageError(`unexpected argument "${first}" (doctor takes options only)`);
      return (await import('./commands/doctor.js')).doctorCommand({ json: values.json === true });
    }
    case 'serve': {
      if (first) throw new UsageError(`unexpected argument "${first}" (serve takes options only)`);
      const { serveCommand } = await import('./commands/serve.js');
      return serveCommand({
        cwd,
        ...(values.config ? { config: values.config } : {}),
        ...pick(values, ['http', 'host', 'token', 'studio', 'isolation', 'engine', 'store', 'mode']),
      });
    }
    case 'task': {
      if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (quote the task: agent-spaces task "<task>")`);
      const { parseBudgetOptions, taskCommand } = await import('./commands/task.js');
      return taskCommand({
        ...common,
        ...(first !== undefined ? { task: first } : {}),
        budget: parseBudgetOptions(values),
        ...pick(values, ['trace', 'replay', 'approve', 'studio', 'model', 'context', 'store']),
        ...(values['base-url'] !== undefined ? { baseURL: values['base-url'] } : {}),
      });
    }
    case 'agent serve':
      return (await import('./commands/agent.js')).agentServeCommand({
        cwd,
        dirs: args,
        ...pick(values, ['http', 'a2a', 'host', 'token', 'store']),
      });
    case 'agents serve':
      return (await import('./commands/agents.js')).agentsServeCommand({
        cwd,
        inputs: args,
        ...pick(values, ['http', 'host', 'token', 'store']),
      });
    case 'studio':
      if (first) throw new UsageError(`unexpected argument "${first}" (studio takes options only)`);
      return (await import('./commands/studio.js')).studioCommand({
        cwd,
        ...(values.config ? { config: values.config } : {}),
        ...pick(values, ['port', 'store']),
        ...(values['eval-dir'] ? { evalDir: values['eval-dir'] } : {}),
        open: values.open === true,
      });
    case 'demo':
      if (first) throw new UsageError(`unexpected argument "${first}" (demo takes options only)`);
      return (await import('./commands/demo.js')).demoCommand(common);
    case 'eval': {
      if (!first)
        throw new UsageError('eval needs a suite: agent-spaces eval <suite> (bundled: tau2-retail; or a folder holding suite.ts)');
      if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (eval takes one suite)`);
      const { parseBudgetOptions } = await import('./commands/task.js');
      const { evalCommand } = await import('./commands/eval.js');
      return evalCommand({
        cwd,
        suite: first,
        json: values.json === true,
        resume: values.resume === true,
        budget: parseBudgetOptions(values),
        ...pick(values, ['arms', 'model', 'tasks', 'repeat', 'out']),
        ...(values['base-url'] !== undefined ? { baseURL: values['base-url'] } : {}),
      });
    }
  }
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

/** The given string options that were set. */
function pick<K extends string>(values: Partial<Record<K, unknown>>, keys: K[]): Partial<Record<K, string>> {
  const picked: Partial<Record<K, string>> = {};
  for (const key of keys) if (typeof values[key] === 'string') picked[key] = values[key];
  return picked;
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

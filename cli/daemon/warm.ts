/**
 * A warm process of the CLI's daemon: started by the daemon (with --no-node-snapshot, as the bin's
 * relaunch is) before any command asks for it, it loads what `run` loads — the CLI, the library, tsx —
 * starts the sandbox worker a run with the defaults takes and the type-check thread, and waits. Then it
 * runs exactly one command, as the bin's own process would: the command line's environment (replaced
 * whole, before any of the command's code runs), folder, argv and terminal; its stdout and stderr are
 * pipes the daemon carries to the command line's terminal, its exit code is the command's. It is never
 * used twice: the command's modules, capabilities and state die with it.
 *
 * What loads here before the command must not read the environment or the folder at its top (they are
 * the daemon's then): the CLI and the library read both when a command runs (test: the daemon's tests in
 * test/e2e/cli-bundle.test.ts run with another environment and folder than the daemon's).
 */
import { closeSync, mkdtempSync, realpathSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tty from 'node:tty';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DaemonRequest } from './client.js';

interface RunMessage {
  t: 'run';
  request: DaemonRequest;
}

const root = fileURLToPath(new URL('../../../', import.meta.url));
// Started from the bundle, a TypeScript capability's `import … from 'agent-spaces'` gets the bundle's
// library, as in the bin (bin/agent-spaces.js).
const started = process.argv[1] === undefined ? '' : realpathSync(process.argv[1]);
const bundled = started.startsWith(path.join(root, 'dist', 'cli', 'bundle') + path.sep);
/** What a TypeScript capability's `import … from 'agent-spaces'` gets (config/load-config.ts hostInstanceOf). */
const library = bundled ? realpathSync(path.join(started, '..', 'index.js')) : realpathSync(path.join(root, 'dist', 'index.js'));
if (bundled)
  (globalThis as Record<symbol, unknown>)[Symbol.for('agent-spaces.cli-bundle')] = {
    entry: realpathSync(path.join(root, 'dist', 'index.js')),
    index: library,
  };

const { main } = await import('../main.js');
await Promise.all([
  import('../commands/run.command.js'),
  import('../commands/run.js'),
  import('../output.js'),
  import('../interrupt.js'),
  import('../file-kind.js'),
  import(pathToFileURL(library).href),
  import('../../config/index.js'),
  import('../../space/index.js'),
  import('../../runtime/index.js'),
  import('tsx/esm/api'),
  import('tsx/cjs/api'),
]);
// What a run loads and compiles on first use: sucrase (57 CommonJS files) and acorn for the program,
// ajv's first schemas for a tool (the space's own tools); done once here on throwaway inputs. Each only
// saves time: one that fails is logged (the daemon's log) and the process is ready all the same.
await warmUp('compiling a program', async () => {
  (await import('../../runtime/program/compile-program.js')).compileProgram(
    "import { a } from '@capabilities/warm';\nconst n: number = await a.f({ x: 1 });\nexport default { n, s: `${n}` };\n",
  );
});
await warmUp('defining a tool', async () => {
  (await import('../../core/index.js')).defineTool({
    name: 'warm',
    functions: {
      f: {
        description: 'warms the tool compiler',
        parameters: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false },
        returns: { type: 'number' },
        handler: ({ x }: { x: number }) => x,
      },
    },
  });
});
// A TypeScript capability is imported through tsx, whose loader hooks run on a thread Node starts at the
// first registration (~150 ms): started here with a throwaway module of a scratch folder of our own.
await warmUp('importing a TypeScript module', async () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'agent-spaces-warm-'));
  try {
    writeFileSync(path.join(scratch, 'warm.ts'), 'export const warm: number = 1;\n');
    await (await import('../../config/index.js')).importTypeScript(path.join(scratch, 'warm.ts'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
// What `run` with the defaults starts first: taken by the run when its engine and worker environment
// match, killed otherwise (runtime/worker-pool/prestart.ts); the check thread serves any checked run.
(await import('../../runtime/worker-pool/prestart.js')).prestartSandboxWorker('auto');
const typeCheck = await import('../../runtime/type-check.js');
await typeCheck.useNativeTypeChecker();
typeCheck.warmTypeChecker();

process.on('message', (message: RunMessage) => {
  if (message?.t !== 'run') return;
  const problem = enter(message.request);
  if (problem !== undefined) {
    process.send?.({ t: 'refused', reason: problem });
    process.exit(0);
  }
  process.send?.({ t: 'started' });
  // The channel stays open (the command may yet read stdin) without keeping the process alive.
  (process.channel as { unref?: () => void } | undefined)?.unref?.();
  process.on('exit', reportEnd);
  void main(message.request.argv).then((code) => {
    process.exitCode = code;
  });
});
process.send?.({ t: 'ready' });

async function warmUp(what: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    process.stderr.write(`warm process ${process.pid}: ${what} failed (the run will do it itself): ${(error as Error).message}\n`);
  }
}

/** Becomes the command line's process: environment, folder, argv, terminal. The problem, if it cannot. */
function enter(request: DaemonRequest): string | undefined {
  try {
    process.chdir(request.cwd);
  } catch (error) {
    return `cannot enter ${request.cwd}: ${(error as Error).message}`;
  }
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, request.env);
  process.argv = [process.execPath, request.bin, ...request.argv];
  if (typeof request.umask === 'number' && Number.isInteger(request.umask) && request.umask >= 0 && request.umask <= 0o777)
    process.umask(request.umask);
  const { terminal } = request;
  if (terminal.stdout) {
    Object.assign(process.stdout, { isTTY: true, columns: terminal.columns ?? 80, rows: terminal.rows ?? 24 });
    Object.assign(process.stdout, {
      getColorDepth: tty.WriteStream.prototype.getColorDepth,
      hasColors: tty.WriteStream.prototype.hasColors,
    });
  }
  // stderr stays a pipe to readline (approval prompts): a terminal's own echo answers the keys typed.
  watchStdin(terminal.stdin);
  return undefined;
}

/**
 * The command's exit code on fd 4, then its stdout and stderr closed: the daemon answers the command
 * line now, not after this process has torn down its threads and heaps (~100 ms). The last thing that runs.
 */
function reportEnd(code: number): void {
  for (const fd of [1, 2]) {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
  }
  try {
    writeSync(4, JSON.stringify({ code }));
    closeSync(4);
  } catch {
    // The daemon is gone; the exit itself still ends the command.
  }
}

/**
 * The daemon hears when the command first reads stdin — a 'data' or 'readable' listener, `read`,
 * `resume` (a prompt, `run -`) — and only then does the command line forward its stdin: a command that
 * never reads it leaves the terminal's typed-ahead lines to the shell, as it would.
 */
function watchStdin(isTTY: boolean): void {
  const descriptor = Object.getOwnPropertyDescriptor(process, 'stdin');
  const get = descriptor?.get;
  if (get === undefined) return;
  let stream: NodeJS.ReadStream | undefined;
  let told = false;
  const tell = (): void => {
    if (told) return;
    told = true;
    process.send?.({ t: 'stdin' });
  };
  Object.defineProperty(process, 'stdin', {
    configurable: true,
    enumerable: descriptor?.enumerable ?? true,
    get() {
      if (stream !== undefined) return stream;
      stream = get.call(process) as NodeJS.ReadStream;
      if (isTTY) stream.isTTY = true;
      const target = stream as unknown as Record<string, (...args: unknown[]) => unknown>;
      for (const name of ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener']) {
        const original = target[name] as (...args: unknown[]) => unknown;
        target[name] = function (this: unknown, event: unknown, ...rest: unknown[]) {
          if (event === 'data' || event === 'readable') tell();
          return original.call(this, event, ...rest);
        };
      }
      for (const name of ['read', 'resume']) {
        const original = target[name] as (...args: unknown[]) => unknown;
        target[name] = function (this: unknown, ...args: unknown[]) {
          tell();
          return original.apply(this, args);
        };
      }
      return stream;
    },
  });
}

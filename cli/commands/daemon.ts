/**
 * `agent-spaces daemon start | stop | status`: the user's daemon that runs `run` in a warm process
 * (cli/daemon/). Only for the installed package (its build in dist/): a checkout runs its sources and
 * never asks a daemon.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { askDaemon } from '../daemon/client.js';
import { buildFile, daemonSocket, ensureDaemonFolder, daemonFolder, folderProblem } from '../daemon/socket.js';
import { UsageError } from '../usage-error.js';

const DEFAULT_IDLE_MINUTES = 30;

interface DaemonOptions {
  json: boolean;
}

/** The package's root and the socket a daemon of this Node and build listens on. */
function where(): { root: string; socket: string } {
  if (process.platform === 'win32') throw new UsageError('the daemon needs Unix sockets: not on Windows');
  // By the package's own name: the same from dist/ and from the sources.
  const root = `${path.dirname(fileURLToPath(import.meta.resolve('agent-spaces/package.json')))}${path.sep}`;
  if (!existsSync(path.join(root, 'dist', 'cli', 'daemon', 'supervisor.js')) || existsSync(path.join(root, 'cli', 'main.ts')))
    throw new UsageError(
      `the daemon serves an installed package (its build in dist/); ${root} is a checkout, whose bin runs its sources (and never asks a daemon)`,
    );
  return { root, socket: daemonSocket(root) };
}

/** Why no daemon of the user's can be in the folder (then nothing there is asked or removed), or undefined. */
function refusedFolder(): string | undefined {
  const folder = daemonFolder();
  return existsSync(folder) ? folderProblem(folder) : undefined;
}

function print(options: DaemonOptions, answer: Record<string, unknown>, text: string): void {
  process.stdout.write(options.json ? `${JSON.stringify(answer)}\n` : `${text}\n`);
}

export async function daemonStartCommand(options: DaemonOptions & { idle?: string }): Promise<number> {
  const minutes = options.idle === undefined ? DEFAULT_IDLE_MINUTES : Number(options.idle);
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 7 * 24 * 60)
    throw new UsageError(`--idle takes a number of minutes above 0, at most a week (got "${options.idle}")`);
  const { root, socket } = where();
  const problem = ensureDaemonFolder(daemonFolder());
  if (problem !== undefined) throw new UsageError(`cannot keep the daemon's socket there: ${problem}`);
  const running = existsSync(socket) ? await askDaemon(socket, 'T') : undefined;
  if (running !== undefined) {
    print(
      options,
      { ...running, started: false },
      `agent-spaces daemon: already running (pid ${String(running['pid'])}), listening on ${socket}`,
    );
    return 0;
  }
  rmSync(socket, { force: true });
  const logFile = socket.replace(/\.sock$/, '.log');
  const log = openSync(logFile, 'a', 0o600);
  const bundled = path.join(root, 'dist', 'cli', 'bundle', 'warm.js');
  const warm = existsSync(bundled) ? bundled : path.join(root, 'dist', 'cli', 'daemon', 'warm.js');
  const child = spawn(
    process.execPath,
    [path.join(root, 'dist', 'cli', 'daemon', 'supervisor.js'), socket, warm, String(Math.round(minutes * 60_000)), buildFile(root)],
    { detached: true, stdio: ['ignore', log, log, 'ipc'], cwd: '/' },
  );
  closeSync(log);
  const pid = await new Promise<number | undefined>((resolve) => {
    child.once('message', (message: { t?: string; pid?: number }) => resolve(message?.t === 'listening' ? message.pid : undefined));
    child.once('exit', () => resolve(undefined));
    child.once('error', () => resolve(undefined));
  });
  if (pid === undefined) {
    const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join('\n');
    throw new Error(`the daemon did not start${tail === '' ? '' : `; its log (${logFile}) ends:\n${tail}`}`);
  }
  child.disconnect();
  child.unref();
  print(
    options,
    { started: true, pid, socket, log: logFile, idleMinutes: minutes },
    `agent-spaces daemon: started (pid ${pid}), listening on ${socket}\n` +
      `  \`agent-spaces run\` with this Node and this install now starts in a warm process (AGENT_SPACES_DAEMON=off: never)\n` +
      `  it stops after ${minutes} min without a run, or with \`agent-spaces daemon stop\`; log: ${logFile}`,
  );
  return 0;
}

export async function daemonStopCommand(options: DaemonOptions): Promise<number> {
  const { socket } = where();
  const problem = refusedFolder();
  if (problem !== undefined) {
    print(options, { running: false, socket, problem }, `agent-spaces daemon: none can be running there: ${problem}`);
    return 0;
  }
  const answer = existsSync(socket) ? await askDaemon(socket, 'Q') : undefined;
  if (answer === undefined) {
    rmSync(socket, { force: true });
    print(options, { running: false, socket }, `agent-spaces daemon: none was running for this Node and install (${socket})`);
    return 0;
  }
  const active = Number(answer['active'] ?? 0);
  print(
    options,
    { ...answer, running: false },
    `agent-spaces daemon: stopped (pid ${String(answer['pid'])})${active > 0 ? `; it ends once its ${active} running command(s) have` : ''}`,
  );
  return 0;
}

export async function daemonStatusCommand(options: DaemonOptions): Promise<number> {
  const { socket } = where();
  const problem = refusedFolder();
  if (problem !== undefined) {
    print(options, { running: false, socket, problem }, `agent-spaces daemon: not running, none can be there: ${problem}`);
    return 1;
  }
  const answer = existsSync(socket) ? await askDaemon(socket, 'T') : undefined;
  if (answer === undefined) {
    print(options, { running: false, socket }, `agent-spaces daemon: not running for this Node and install (${socket})`);
    return 1;
  }
  print(
    options,
    { running: true, ...answer },
    [
      `agent-spaces daemon: running (pid ${String(answer['pid'])}) since ${String(answer['since'])}, Node ${String(answer['node'])}`,
      `  socket: ${socket}`,
      `  commands served: ${String(answer['served'])}, running now: ${String(answer['active'])}, warm processes ready: ${String(answer['warm'])}`,
      `  stops after ${String(answer['idleMinutes'])} min without a run`,
    ].join('\n'),
  );
  return 0;
}

/**
 * For `doctor`: whether the user's daemon of this Node and install runs, found and asked as `daemon
 * status` does (never in a folder that is not the user's own); a reason instead of an error.
 */
export async function daemonState(): Promise<{ running: boolean; pid?: number; detail: string }> {
  let socket: string;
  try {
    ({ socket } = where());
  } catch (error) {
    return { running: false, detail: `not available: ${(error as Error).message}` };
  }
  const problem = refusedFolder();
  if (problem !== undefined) return { running: false, detail: `not asked: ${problem}` };
  const answer = existsSync(socket) ? await askDaemon(socket, 'T') : undefined;
  if (answer === undefined)
    return { running: false, detail: 'not running (`agent-spaces daemon start`: `run` then starts in a warm process)' };
  const pid = Number(answer['pid']);
  return { running: true, pid, detail: `running (pid ${pid}): \`run\` starts in a warm process; ${String(answer['served'])} served` };
}

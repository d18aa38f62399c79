/**
 * The CLI's daemon (`agent-spaces daemon start`): listens on the user's socket (cli/daemon/socket.ts),
 * keeps a warm process ready (cli/daemon/warm.ts: the CLI and the library loaded, a sandbox worker and
 * the type-check thread started) and hands each `run` it is sent to one, once: the command's output,
 * stdin, signals and exit code go between that process and the command line's terminal through the
 * socket (cli/daemon/client.ts). A command it cannot take at once (no warm process will start, the
 * package changed on disk) is answered "not taken", and the command line runs it itself.
 *
 * `node supervisor.js <socket> <warm entry> <idle ms>`; started detached by `daemon start`, which waits
 * for `{ t: 'listening' }` on the IPC channel. Ends after <idle ms> without a command, on `Q`
 * (`daemon stop`) and on SIGTERM/SIGINT — once its running commands have ended — removing its socket.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, rmSync, statSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { DaemonRequest } from './client.js';
import { encodeFrame, FrameReader, MAX_FRAME_BYTES, type Frame, type FrameType } from './frames.js';
import { parseDaemonRequest } from './request.js';

const [socketPath, warmEntry, idleArgument, buildPath] = process.argv.slice(2) as [string, string, string, string];
const idleMs = Number(idleArgument);
const buildStamp = stampOf(buildPath);
/** At most this many warm processes starting or waiting at once (several commands at the same moment). */
const MAX_WARM = 4;
/** A warm process that dies before it is ready this many times in a row stops the daemon from starting more. */
const MAX_FAILED_STARTS = 3;
/** How long a command may take to name itself after connecting. */
const REQUEST_MS = 10_000;
const ALLOWED_SIGNALS = new Set(['SIGINT', 'SIGTERM', 'SIGHUP']);

interface Warm {
  child: ChildProcess;
  ready: boolean;
}

const warm: Warm[] = [];
const waiting: ((process: Warm | undefined) => void)[] = [];
const running = new Set<ChildProcess>();
/** Commands whose command line has not yet been told how they ended. */
const unanswered = new Set<ChildProcess>();
let failedStarts = 0;
let served = 0;
let stopping = false;
let idleTimer: NodeJS.Timeout | undefined;
const since = new Date().toISOString();

const server = createServer(serve);
server.on('error', (error) => {
  log(`cannot listen on ${socketPath}: ${error.message}`);
  process.exit(1);
});
server.listen(socketPath, () => {
  chmodSync(socketPath, 0o600);
  log(`listening on ${socketPath} (pid ${process.pid})`);
  startWarm();
  process.send?.({ t: 'listening', pid: process.pid });
  process.disconnect?.();
  armIdle();
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => stop(`${signal}`));

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

function stampOf(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  } catch {
    return 'missing';
  }
}

function armIdle(): void {
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  idleTimer = undefined;
  if (running.size === 0 && !stopping) idleTimer = setTimeout(() => stop(`idle for ${Math.round(idleMs / 60_000)} min`), idleMs);
}

/** Stops taking commands; ends once the running ones have. */
function stop(why: string): void {
  if (!stopping) log(`stopping: ${why}`);
  stopping = true;
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  server.close();
  rmSync(socketPath, { force: true });
  for (const entry of warm.splice(0)) entry.child.kill('SIGTERM');
  for (const answer of waiting.splice(0)) answer(undefined);
  if (running.size === 0 && unanswered.size === 0) process.exit(0);
}

/** Starts warm processes until those starting or ready cover the commands waiting (at least one). */
function startWarm(): void {
  while (!stopping && failedStarts < MAX_FAILED_STARTS && warm.length < Math.min(MAX_WARM, Math.max(1, waiting.length))) {
    const child = spawn(process.execPath, ['--no-node-snapshot', warmEntry], {
      // fd 4: the command's exit code, written as it exits (warm.ts reportEnd).
      stdio: ['pipe', 'pipe', 'pipe', 'ipc', 'pipe'],
      cwd: '/',
    });
    const entry: Warm = { child, ready: false };
    warm.push(entry);
    // Until it runs a command, what it prints is the daemon's log.
    child.stdout?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    child.on('message', (message: { t?: string }) => {
      if (message?.t !== 'ready' || entry.ready) return;
      entry.ready = true;
      failedStarts = 0;
      const next = waiting.shift();
      if (next !== undefined) hand(entry, next);
    });
    child.on('exit', (code, signal) => {
      const index = warm.indexOf(entry);
      if (index === -1) return;
      warm.splice(index, 1);
      if (!entry.ready) {
        failedStarts++;
        log(`a warm process ended before it was ready (${signal ?? `exit ${code}`})`);
        if (failedStarts >= MAX_FAILED_STARTS) for (const answer of waiting.splice(0)) answer(undefined);
      }
      startWarm();
    });
  }
}

/**
 * Takes `entry` out of the pool for `answer`. The next warm process starts once this command has ended
 * (or at once for a command that finds none ready): its start (1–2 s of CPU) would compete with the run a
 * person is waiting for, and its spawn alone holds this thread ~20 ms.
 */
function hand(entry: Warm, answer: (process: Warm | undefined) => void): void {
  warm.splice(warm.indexOf(entry), 1);
  answer(entry);
}

/** A ready warm process, or the next to be ready; undefined when none will be (or `socket` closed first). */
function takeWarm(socket: Socket): Promise<Warm | undefined> {
  const ready = warm.find((entry) => entry.ready);
  if (ready !== undefined) {
    return new Promise((resolve) => hand(ready, resolve));
  }
  if (stopping || failedStarts >= MAX_FAILED_STARTS) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    waiting.push(resolve);
    // A command line that leaves while it waits is no longer owed a warm process.
    socket.once('close', () => {
      const index = waiting.indexOf(resolve);
      if (index === -1) return;
      waiting.splice(index, 1);
      resolve(undefined);
    });
    startWarm();
  });
}

function serve(socket: Socket): void {
  const reader = new FrameReader();
  let child: ChildProcess | undefined;
  let named = false;
  /** The command received and answered K, until the command line says G. */
  let received: DaemonRequest | undefined;
  let goTimer: NodeJS.Timeout | undefined;
  /** Frames after the request that come before its warm process does (stdin sent along with it). */
  const early: Frame[] = [];
  let earlyBytes = 0;
  const nameTimer = setTimeout(() => socket.destroy(), REQUEST_MS);
  const send = (type: Parameters<typeof encodeFrame>[0], payload?: Buffer | string): void => {
    if (!socket.destroyed) socket.write(encodeFrame(type, payload));
  };
  socket.on('error', () => undefined);
  socket.on('close', () => {
    clearTimeout(nameTimer);
    clearTimeout(goTimer);
    // The command line went away (killed, its terminal closed): the command is stopped as Ctrl-C would.
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const force = setTimeout(() => child?.kill('SIGKILL'), 5_000);
      force.unref();
    }
  });
  socket.on('data', (chunk: Buffer) => {
    let frames: Frame[];
    try {
      frames = reader.push(chunk);
    } catch {
      socket.destroy();
      return;
    }
    for (const frame of frames) onFrame(frame);
  });

  function onFrame({ type, payload }: Frame): void {
    if (!named) {
      named = true;
      clearTimeout(nameTimer);
      if (type === 'T') return send('J', JSON.stringify(status()));
      if (type === 'Q') {
        send('J', JSON.stringify({ ...status(), stopping: true }));
        socket.end();
        return stop('asked to stop (daemon stop)');
      }
      if (type !== 'R') return void socket.destroy();
      const request = parseDaemonRequest(payload);
      if (typeof request === 'string') {
        send('F', request);
        socket.end();
        return;
      }
      // Only a command keeps the daemon from its idle stop (not `daemon status`, nor a connection that names none).
      armIdle();
      send('K');
      // Nothing runs before the command line says go: one that gave up waiting for K runs it itself.
      received = request;
      goTimer = setTimeout(() => socket.destroy(), REQUEST_MS);
      return;
    }
    if (received !== undefined) {
      const request = received;
      received = undefined;
      clearTimeout(goTimer);
      if (type !== 'G') return void socket.destroy();
      void start(request);
      return;
    }
    if (child === undefined) {
      earlyBytes += payload.length;
      if (earlyBytes > MAX_FRAME_BYTES) return void socket.destroy();
      early.push({ type, payload });
      return;
    }
    if (type === 'I') child.stdin?.write(payload);
    else if (type === 'E') child.stdin?.end();
    else if (type === 'S') {
      const signal = payload.toString('utf8');
      if (ALLOWED_SIGNALS.has(signal)) child.kill(signal as NodeJS.Signals);
    }
  }

  async function start(request: DaemonRequest): Promise<void> {
    if (stampOf(buildPath) !== buildStamp) {
      send('F', 'the package changed on disk since the daemon started');
      socket.end();
      return stop('the package changed on disk');
    }
    const entry = await takeWarm(socket);
    if (entry === undefined || socket.destroyed) {
      if (entry !== undefined) entry.child.kill('SIGTERM');
      send('F', 'no warm process');
      socket.end();
      return;
    }
    const taken = entry.child;
    child = taken;
    carryCommand(taken, socket, send);
    taken.send({ t: 'run', request });
    for (const frame of early.splice(0)) onFrame(frame);
  }
}

/**
 * Carries the command that `taken` runs to its command line on `socket`: its output (slowed to the pace
 * the command line reads at), its `started` / `refused` / `stdin` messages, and how it ended (the exit
 * code it reports on fd 4 once its output is read, else its exit), then the next warm process.
 */
function carryCommand(taken: ChildProcess, socket: Socket, send: (type: FrameType, payload?: Buffer | string) => void): void {
  let refused = false;
  running.add(taken);
  unanswered.add(taken);
  armIdle();
  taken.stdout?.removeAllListeners('data');
  taken.stderr?.removeAllListeners('data');
  // A command line that reads slowly (a pager) slows the command, as a pipe would: what the daemon
  // holds for it stays about one chunk, not all the command writes.
  const output = [taken.stdout, taken.stderr];
  const carry = (type: 'O' | 'e') => (chunk: Buffer) => {
    if (socket.destroyed || socket.write(encodeFrame(type, chunk))) return;
    for (const stream of output) stream?.pause();
    socket.once('drain', () => {
      for (const stream of output) stream?.resume();
    });
  };
  taken.stdout?.on('data', carry('O'));
  taken.stderr?.on('data', carry('e'));
  // Gone: what it would have read is dropped (the command is being stopped).
  socket.once('close', () => {
    for (const stream of output) stream?.resume();
  });
  taken.stdin?.on('error', () => undefined);
  taken.on('message', (message: { t?: string; reason?: string }) => {
    if (message?.t === 'started') {
      served++;
      send('A');
    } else if (message?.t === 'refused') {
      refused = true;
      send('F', message.reason ?? 'refused');
      socket.end();
    } else if (message?.t === 'stdin') send('W');
  });
  // 'close': the process has ended and its stdout and stderr are read to the end (or, should a process
  // it started hold them open, a moment after it ended).
  let ended = false;
  let exited = false;
  // The daemon asked to stop ends once its last command has ended and the command line has heard so.
  const settle = (): void => {
    if (ended && exited) unanswered.delete(taken);
    if (stopping && running.size === 0 && unanswered.size === 0) process.exit(0);
  };
  const end = (code: number | null, signal: NodeJS.Signals | null): void => {
    if (ended) return;
    ended = true;
    if (!refused) send('X', JSON.stringify({ code, signal }));
    socket.end(settle);
    if (socket.destroyed) settle();
  };
  // The exit code it reports as it exits, once its stdout and stderr are read to the end: the command
  // line has all of it, and need not wait for the process to finish ending.
  let reported = '';
  const status = taken.stdio[4] as Readable | null;
  const streamsEnded = [taken.stdout, taken.stderr, status].map(
    (stream) =>
      new Promise<void>((resolve) =>
        stream === null || stream.readableEnded ? resolve() : stream.once('end', resolve).once('close', resolve),
      ),
  );
  status?.on('data', (chunk: Buffer) => (reported += chunk.toString('utf8')));
  void Promise.all(streamsEnded).then(() => {
    const code = /^\{"code":(\d{1,3})\}$/.exec(reported)?.[1];
    if (code !== undefined) end(Number(code), null);
  });
  taken.on('exit', (code, signal) => {
    running.delete(taken);
    exited = true;
    settle();
    armIdle();
    startWarm();
    // A process it started may hold its stdout open: the command line hears the end a moment later.
    setTimeout(() => end(code, signal), 2_000).unref();
  });
  taken.on('close', end);
}

function status(): Record<string, unknown> {
  return {
    pid: process.pid,
    socket: socketPath,
    since,
    node: process.version,
    served,
    active: running.size,
    warm: warm.filter((entry) => entry.ready).length,
    idleMinutes: idleMs / 60_000,
  };
}

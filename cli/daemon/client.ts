/**
 * The CLI's side of its daemon: the bin hands `run` to a warm process over the user's socket and
 * becomes its terminal (stdout, stderr, stdin when the command reads it, Ctrl-C and SIGTERM, the exit
 * code). Any answer short of "started" — no daemon listening, a stale socket, a busy or failing daemon —
 * resolves `undefined` and the bin runs the command itself, as it would without a daemon.
 */
import { connect, type Socket } from 'node:net';
import { constants } from 'node:os';
import { encodeFrame, FrameReader, type Frame } from './frames.js';

/** What a warm process needs of the command line's process to run it as that process would. */
export interface DaemonRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The bin's path (process.argv[1]). */
  bin: string;
  /** The file mode creation mask (files the command writes get the command line's permissions). */
  umask?: number;
  terminal: { stdin: boolean; stdout: boolean; stderr: boolean; columns?: number; rows?: number };
}

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/**
 * How long the command line waits for the daemon to say it received the command (it does at once): a
 * daemon that hangs (stopped, wedged) has not read it, so the command line runs the command itself — and
 * never sends the `G` without which the daemon runs nothing, should it read the command later.
 */
const RECEIVED_MS = 5_000;

/** Runs `argv` in the daemon at `socketPath`; its exit code, or undefined when the daemon did not take it. */
export function runThroughDaemon(socketPath: string, argv: string[]): Promise<number | undefined> {
  return new Promise((resolve) => {
    let socket: Socket;
    try {
      socket = connect(socketPath);
    } catch {
      resolve(undefined);
      return;
    }
    const reader = new FrameReader();
    let started = false;
    let ended = false;
    let readingStdin = false;
    const unanswered = setTimeout(() => finish(undefined), RECEIVED_MS);
    const forward = (signal: NodeJS.Signals): void => {
      if (!socket.destroyed) socket.write(encodeFrame('S', signal));
    };
    const finish = (code: number | undefined): void => {
      if (ended) return;
      ended = true;
      clearTimeout(unanswered);
      for (const signal of FORWARDED) process.off(signal, forward);
      if (readingStdin) process.stdin.destroy();
      socket.destroy();
      resolve(code);
    };
    socket.on('connect', () => {
      const request: DaemonRequest = {
        argv,
        cwd: process.cwd(),
        env: Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
        bin: process.argv[1] ?? '',
        umask: process.umask(),
        terminal: {
          stdin: process.stdin.isTTY === true,
          stdout: process.stdout.isTTY === true,
          stderr: process.stderr.isTTY === true,
          ...(process.stdout.columns !== undefined ? { columns: process.stdout.columns, rows: process.stdout.rows } : {}),
        },
      };
      socket.write(encodeFrame('R', JSON.stringify(request)));
    });
    socket.on('data', (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = reader.push(chunk);
      } catch {
        frames = [];
        if (!started) finish(undefined);
        else lost('sent a frame it should not have');
      }
      for (const frame of frames) handle(frame);
    });
    socket.on('error', () => {
      if (!started) finish(undefined);
    });
    socket.on('close', () => {
      if (!started) finish(undefined);
      else lost('closed the connection before the command ended');
    });

    function lost(what: string): void {
      if (ended) return;
      process.stderr.write(`agent-spaces: the daemon ${what}\n`);
      finish(1);
    }

    function handle({ type, payload }: Frame): void {
      if (ended) return;
      switch (type) {
        case 'K':
          // Committed: past this point the command runs in the daemon or not at all (the daemon starts
          // nothing before G, and a command line that gave up never sends it).
          clearTimeout(unanswered);
          socket.write(encodeFrame('G'));
          return;
        case 'A':
          clearTimeout(unanswered);
          started = true;
          for (const signal of FORWARDED) process.on(signal, forward);
          return;
        case 'F':
          if (!started) finish(undefined);
          return;
        case 'O':
          process.stdout.write(payload);
          return;
        case 'e':
          process.stderr.write(payload);
          return;
        case 'W':
          if (readingStdin) return;
          readingStdin = true;
          process.stdin.on('data', (data: Buffer) => socket.write(encodeFrame('I', data)));
          process.stdin.on('end', () => socket.write(encodeFrame('E')));
          process.stdin.on('error', () => socket.write(encodeFrame('E')));
          return;
        case 'X': {
          const ending = endingOf(payload);
          if (ending === undefined) {
            lost('sent an exit status that is not one');
            return;
          }
          const { code, signal } = ending;
          if (signal === null) {
            finish(code ?? 1);
            return;
          }
          // The warm process died of the signal before it could answer it (as the bin's relaunch says it).
          process.stderr.write(
            signal === 'SIGINT' || signal === 'SIGTERM' ? 'agent-spaces: interrupted\n' : `agent-spaces: stopped by ${signal}\n`,
          );
          finish(128 + (constants.signals[signal] ?? 0));
          return;
        }
        default:
          lost(`sent a frame of type ${JSON.stringify(type)}`);
      }
    }
  });
}

/** How the command ended, from an `X` frame: a code of 0–255 or a signal's name; undefined for anything else. */
function endingOf(payload: Buffer): { code: number | null; signal: NodeJS.Signals | null } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, signal } = value as { code?: unknown; signal?: unknown };
  const validCode = code === null || (typeof code === 'number' && Number.isInteger(code) && code >= 0 && code <= 255);
  const validSignal = signal === null || (typeof signal === 'string' && signal in constants.signals);
  if (!validCode || !validSignal || (code === null) === (signal === null)) return undefined;
  return { code: code as number | null, signal: signal as NodeJS.Signals | null };
}

/** Asks the daemon at `socketPath` for its status (`T`) or to stop (`Q`); its JSON answer, or undefined when none listens. */
export function askDaemon(socketPath: string, type: 'T' | 'Q'): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const reader = new FrameReader();
    const done = (answer: Record<string, unknown> | undefined): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.on('connect', () => socket.write(encodeFrame(type)));
    socket.on('data', (chunk: Buffer) => {
      try {
        for (const frame of reader.push(chunk))
          if (frame.type === 'J') done(JSON.parse(frame.payload.toString('utf8')) as Record<string, unknown>);
      } catch {
        done(undefined);
      }
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
  });
}

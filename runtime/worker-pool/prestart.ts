/**
 * A sandbox worker process started before its pool exists: a one-shot host (the CLI's `run`) starts it
 * as soon as it knows the engine, so the worker's Node start and engine load overlap the host's own
 * module loading and build; the first pool whose worker would be started from the same command line
 * takes it (and only with the environment it would be given now). Its frames wait in the pipe until the pool reads them. One that no pool takes is killed
 * when another command line is asked for, and when the process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { EngineChoice } from '../engine.js';
import { resolveWorkerEntry, workerEnvironment, type WorkerEntry } from './worker-entry.js';

interface Prestarted {
  commandLine: string;
  child: ChildProcess;
  gone: boolean;
}

let waiting: Prestarted | undefined;

/** Starts a sandbox worker process from `entry` as the pool does: none of the host's environment, frames on fd 3. */
export function spawnWorkerProcess(entry: WorkerEntry): ChildProcess {
  // The worker runs hostile code: it gets none of the host's environment (model keys, server secrets).
  return spawn(process.execPath, [...entry.execArgv, entry.file, ...entry.args], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    env: workerEnvironment(),
  });
}

/**
 * Starts the sandbox worker a worker pool of `engine` would start first (a second call while one waits
 * does nothing). It does not keep the process alive while it waits.
 */
export function prestartSandboxWorker(engine: EngineChoice = 'auto'): void {
  if (waiting !== undefined) return;
  const entry = resolveWorkerEntry(undefined, engine);
  const child = spawnWorkerProcess(entry);
  const held: Prestarted = { commandLine: commandLineOf(entry), child, gone: false };
  const gone = (): void => {
    held.gone = true;
    if (waiting === held) waiting = undefined;
  };
  child.once('exit', gone);
  child.once('error', gone);
  setReferenced(child, false);
  process.once('exit', () => {
    if (waiting === held) child.kill('SIGKILL');
  });
  waiting = held;
}

/** The waiting worker, if it was started from `entry`'s command line and is still running; any other is killed. */
export function takePrestartedWorker(entry: WorkerEntry): ChildProcess | undefined {
  const held = waiting;
  if (held === undefined) return undefined;
  waiting = undefined;
  const running = !held.gone && held.child.exitCode === null && held.child.signalCode === null;
  if (!running || held.commandLine !== commandLineOf(entry)) {
    held.child.kill('SIGKILL');
    return undefined;
  }
  setReferenced(held.child, true);
  return held.child;
}

/** The worker's command line and the environment it gets (a warm process of the CLI's daemon changes its own before the run takes it). */
function commandLineOf(entry: WorkerEntry): string {
  return JSON.stringify([...entry.execArgv, entry.file, ...entry.args, workerEnvironment()]);
}

/** While it waits, nothing of it keeps the process alive: the child, its channel, its stderr (which the transport leaves unreferenced too). */
function setReferenced(child: ChildProcess, referenced: boolean): void {
  for (const handle of [child, child.stdio[3] as Socket | null]) {
    if (referenced) handle?.ref();
    else handle?.unref();
  }
  (child.stderr as Socket | null)?.unref();
}

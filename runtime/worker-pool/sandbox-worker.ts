/**
 * Entry of a sandbox worker: runs programs, several at a time, each in a fresh engine instance on this
 * worker's main thread, and talks to the host in frames (host-channel.ts): on file descriptor 3 in a
 * worker process, over its port on a sandbox thread of the host's process. Arguments, replies, log
 * lines and results pass through as text, unparsed. Exits when the host goes away.
 * Its first argument is the engine choice (`auto`, `isolated-vm`, `quickjs`): `auto` is resolved here,
 * where the engine runs, and the 'ready' frame says which engine it loaded and why.
 *
 * A worker does nothing but run programs, so they run on its main thread: a capability call then
 * costs no thread hop. The host ends a run whose worker does not report shortly after a cancel or the
 * deadline, and kills that worker (see worker-pool.ts). It never reads `process.env` (on a thread it
 * is an empty copy, not the host's).
 */
import type { Engine, EngineRun, SpareInstance } from '../engine.js';
import { loadEngine, selectEngine, validateEngineChoice } from '../engines.js';
import { DEFAULT_RUN_LIMITS } from '../sandbox.js';
import type { HostToWorkerHeader, WorkerToHostHeader } from '../worker-protocol.js';
import { openHostChannel } from './host-channel.js';

/** Frames that came before the engine loaded (none should: the host sends runs after 'ready'). */
const early: { header: string; body: string }[] = [];
let started = false;
const channel = openHostChannel((frame) => (started ? onFrame(frame) : early.push(frame)));
const post = (header: WorkerToHostHeader, body?: string): void => channel.post(JSON.stringify(header), body);

let engine: Engine;
let reason: string;
try {
  const selection = await selectEngine(validateEngineChoice(process.argv[2] ?? 'auto', "the sandbox worker's engine"), channel.placement);
  engine = await loadEngine(selection.engine, channel.placement);
  reason = selection.reason;
} catch (error) {
  process.stderr.write(`sandbox-worker: no engine: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

/** Runs in progress, with the releases of their deadline holds by the host's hold id. */
const runs = new Map<string, { run: EngineRun; holds: Map<number, () => void> }>();
/** The host asked this worker to end ('stop'): no run starts and no spare is made. */
let stopping = false;
/** The next run's instance, made while idle, with the memory limit of the last run. */
let spare: SpareInstance | undefined = engine.prepare(DEFAULT_RUN_LIMITS.memoryLimitMb);

function startRun(header: Extract<HostToWorkerHeader, { t: 'run' }>, js: string): void {
  const { runId, limits } = header;
  if (channel.stopRequested()) stop();
  if (runs.has(runId) || stopping) return;
  const run = engine.startRun(
    { runId, js, outDir: header.outDir, limits },
    {
      call: (id, capability, fn, argsJson, mode) => post({ t: 'call', runId, id, capability, fn, mode }, argsJson),
      log: (level, message) => post({ t: 'log', runId, level }, message),
      // A program's slice may hold this thread's event loop while the host asks it to stop (a flood of
      // calls: the 'stop' frame waits behind the slice); the engine enters here from inside it.
      checkIn: () => {
        if (channel.stopRequested()) stop();
      },
    },
    spare,
  );
  spare = undefined;
  runs.set(runId, { run, holds: new Map() });
  void run.outcome.then((outcome) => {
    const body = outcome.success ? (outcome.resultJson ?? 'null') : JSON.stringify(outcome.error);
    post({ t: 'result', runId, ok: outcome.success, timedOut: outcome.timedOut }, body);
  });
  void run.released.then(() => {
    runs.delete(runId);
    post({ t: 'released', runId });
    // Made after the report, off the path of the next run's start.
    setImmediate(() => {
      if (spare === undefined && !stopping) spare = engine.prepare(limits.memoryLimitMb);
    });
  });
}

function onFrame({ header, body }: { header: string; body: string }): void {
  const message = JSON.parse(header) as HostToWorkerHeader;
  switch (message.t) {
    case 'run':
      return startRun(message, body);
    case 'cancel':
      return runs.get(message.runId)?.run.cancel();
    case 'hold': {
      const entry = runs.get(message.runId);
      entry?.holds.set(message.holdId, entry.run.holdDeadline());
      return;
    }
    case 'release': {
      const entry = runs.get(message.runId);
      entry?.holds.get(message.holdId)?.();
      entry?.holds.delete(message.holdId);
      return;
    }
    case 'reply':
      return runs.get(message.runId)?.run.reply(message.id, message.ok, body);
    case 'stop':
      return stop();
  }
}

/**
 * Ends this worker from its own event loop, once every instance has stopped: a thread terminated from
 * outside while isolated-vm is inside a call into it aborts the host's whole process.
 */
function stop(): void {
  if (stopping) return;
  stopping = true;
  spare?.dispose();
  spare = undefined;
  const released = [...runs.values()].map(({ run }) => {
    run.cancel('the sandbox worker was stopped');
    return run.released;
  });
  void Promise.all(released).then(() => setImmediate(() => channel.end()));
}

started = true;
for (const frame of early.splice(0)) onFrame(frame);
post({ t: 'ready', pid: process.pid, engine: engine.name, reason: `${reason}; ${engine.description}` });

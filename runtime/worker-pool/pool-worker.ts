/**
 * One sandbox worker as the pool sees it: its transport (a child process with frames on a pipe, or a
 * thread of the host's process with frames on its port), the runs it holds, and whether it takes more.
 * Every frame it sends is size-capped (by the transport) and its header checked against the contract
 * (here, for both transports); a worker that breaks it is killed, and only its own runs fail.
 */
import type { RunError } from '../../core/run-result.js';
import type { HostRun, RunWorker } from '../host-run.js';
import { readWorkerHeader, type HostToWorkerHeader, type WorkerToHostHeader } from '../worker-protocol.js';
import type { Frame } from './frames.js';
import { ProcessTransport } from './process-transport.js';
import { ThreadTransport } from './thread-transport.js';
import type { WorkerEntry } from './worker-entry.js';
import type { WorkerTransport, WorkerTransportKind } from './worker-transport.js';

/** What a worker tells its pool. */
export interface PoolWorkerEvents {
  /** Its 'ready' frame arrived (once; not after it was killed). */
  ready(worker: PoolWorker, message: Extract<WorkerToHostHeader, { t: 'ready' }>): void;
  /** A run's instance stopped: the run is off the worker, its slot free. */
  runReleased(worker: PoolWorker): void;
  exited(worker: PoolWorker, code: number | null, signal: NodeJS.Signals | null): void;
}

/**
 * Replies a worker has not read yet past which its runs' waiting calls do not start until the pipe
 * drains: a worker whose program computes (or that never reads) would otherwise have every result of
 * its runs buffered on the host — a thousand 1 MiB results, a GiB per run.
 */
const MAX_UNSENT_BYTES = 8 * 1024 * 1024;
/** How long a thread asked to stop may take to stop its instances and end before it is reported gone (never terminated). */
const STOP_GRACE_MS = 1_000;

export class PoolWorker implements RunWorker {
  /** The worker's id: its process id, or its thread id (see {@link WorkerTransport.id}). */
  readonly pid: number;
  readonly transport: WorkerTransport;
  /** Runs by their id on the channel, until the worker reports each one's instance stopped. */
  readonly runs = new Map<string, HostRun>();
  /** It sent 'ready': it takes runs. */
  ready = false;
  /** Killed and waiting for its exit: it must stay referenced until then. */
  killed = false;
  /** Its exit was reported. */
  exited = false;
  /** Settles once it exited. */
  readonly exit: Promise<void>;
  /** Slots promised to callers that have not started their run yet. */
  reserved = 0;
  /** When it was last given a run: among equally busy workers, the one idle longest goes first. */
  lastUsed = 0;
  /** Calls of its runs wait for its unsent replies to go out (see MAX_UNSENT_BYTES). */
  #callsWaitForPipe = false;

  constructor(kind: WorkerTransportKind, entry: WorkerEntry, events: PoolWorkerEvents, maxFrameBytes: () => number) {
    let exited!: () => void;
    this.exit = new Promise<void>((resolve) => (exited = resolve));
    const Transport = kind === 'thread' ? ThreadTransport : ProcessTransport;
    this.transport = new Transport(
      entry,
      {
        frame: (frame) => this.#frame(events, frame),
        violation: (reason) => this.violation(reason),
        writable: () => this.#resumeCalls(),
        failed: () => this.kill({ now: true }),
        exited: (code, signal) => {
          this.exited = true;
          exited();
          events.exited(this, code, signal);
        },
      },
      maxFrameBytes,
    );
    this.pid = this.transport.id;
  }

  /** What it wrote to stderr last (and a thread's error), for the reason it died. */
  get stderr(): string {
    return this.transport.stderr;
  }

  /** Runs it holds and slots promised. */
  get load(): number {
    return this.runs.size + this.reserved;
  }

  /** A run of it may hold its thread past that run's end (see HostRun.blocksWorker): it takes no new run. */
  get blocked(): boolean {
    return [...this.runs.values()].some((run) => run.blocksWorker);
  }

  /** Started, not killed, and not holding a run that ended but whose instance has not stopped yet. */
  get settled(): boolean {
    return this.ready && !this.killed && [...this.runs.values()].every((run) => !run.settled);
  }

  send(header: HostToWorkerHeader, body?: string): void {
    this.transport.send(JSON.stringify(header), body);
  }

  mayStartCall(): boolean {
    if (this.transport.unsentBytes() < MAX_UNSENT_BYTES) return true;
    this.#callsWaitForPipe = true;
    this.transport.awaitRoom();
    return false;
  }

  violation(what: string): void {
    this.failRuns({
      name: 'SandboxError',
      code: 'SANDBOX_CRASHED',
      message: `the sandbox worker (${this.transport.label}) broke the host protocol (${what}) and was replaced`,
    });
    this.kill({ now: true });
  }

  hasOtherRunGoing(run: HostRun): boolean {
    return [...this.runs.values()].some((other) => other !== run && !other.settled);
  }

  /**
   * Ends it. A thread is asked to stop its runs' instances and end by itself, never terminated (see
   * ThreadTransport.kill), unless it broke the protocol or its channel (`now`). A process is killed at once.
   */
  kill(options: { now?: boolean } = {}): void {
    if (this.killed) {
      if (options.now === true) this.transport.kill();
      return;
    }
    this.killed = true;
    this.updateRef();
    if (this.transport.kind !== 'thread' || options.now === true) return this.transport.kill();
    this.send({ t: 'stop' });
    this.transport.kill(STOP_GRACE_MS);
  }

  /** Its runs that have not ended fail with `error` (they stay on it until it reports them stopped or exits). */
  failRuns(error: RunError): void {
    for (const run of this.runs.values()) run.failWithWorker(error);
  }

  /** It exited: its runs that have not ended fail with `error`, and none is waited for any more. */
  endRuns(error: RunError): void {
    for (const run of this.runs.values()) {
      run.detach();
      run.failWithWorker(error);
    }
    this.runs.clear();
  }

  /** An idle worker must not keep the host alive; a starting, busy or killed one does. */
  updateRef(): void {
    if (this.ready && this.load === 0 && !this.killed) this.transport.unref();
    else this.transport.ref();
  }

  #frame(events: PoolWorkerEvents, { header, body, bodyBytes }: Frame): void {
    const message = readWorkerHeader(header);
    if (message === undefined) return this.violation('a malformed message');
    this.#receive(events, message, body, bodyBytes);
  }

  #receive(events: PoolWorkerEvents, message: WorkerToHostHeader, body: string, bodyBytes: number): void {
    if (message.t === 'ready') {
      // A 'ready' after the worker was killed (e.g. by close()) must not unreference it: the host
      // would then end before the exit it waits for (exit code 13).
      if (this.killed || this.ready) return;
      return events.ready(this, message);
    }
    const run = this.runs.get(message.runId);
    // Messages about runs the host no longer waits for are dropped, not trusted.
    if (run === undefined) return;
    if (message.t !== 'released') return run.receive(message, body, bodyBytes);
    this.runs.delete(run.wireId);
    run.released();
    this.updateRef();
    events.runReleased(this);
  }

  #resumeCalls(): void {
    if (!this.#callsWaitForPipe) return;
    this.#callsWaitForPipe = false;
    for (const run of this.runs.values()) run.resumeCalls();
  }
}

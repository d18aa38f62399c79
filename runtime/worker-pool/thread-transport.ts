/**
 * A sandbox worker on a `node:worker_threads` thread of the host's process: no process hop (a call
 * crosses the thread's message port, not a pipe), and no second Node process's memory. The thread gets
 * a `process.env` of its own with the few names a worker process gets (not the host's), a bounded Node
 * heap (`resourceLimits`), and its
 * stdout and stderr are kept here, never the host's. What a thread cannot give that a process does is
 * in runtime/README.md ("The thread placement").
 */
import { Worker } from 'node:worker_threads';
import { createPortWriter, readPortMessage, untakenUnits, type PortWriter, type ThreadWorkerData } from './thread-frames.js';
import { workerEnvironment, type WorkerEntry } from './worker-entry.js';
import type { WorkerTransport, WorkerTransportEvents } from './worker-transport.js';

/**
 * The thread's own Node heap (its JavaScript: frames, the engine's binding; the isolates' heaps are
 * their own and limited per run). Past it the thread ends with ERR_WORKER_OUT_OF_MEMORY, not the host.
 */
const THREAD_HEAP_MB = 512;
/** How long a terminated thread may take to stop before it is reported gone (a thread stuck in native code never stops). */
const TERMINATE_GRACE_MS = 2_000;
/**
 * How long a thread asked to stop, and reported gone when it did not within its grace, keeps the host
 * alive while it ends by itself (its engine's slices all have time limits); then it no longer does.
 */
const ABANDONED_REF_MS = 120_000;

export class ThreadTransport implements WorkerTransport {
  readonly kind = 'thread';
  readonly id: number;
  readonly label: string;
  stderr = '';
  readonly #worker: Worker;
  readonly #write: PortWriter;
  readonly #taken = new Int32Array(new SharedArrayBuffer(4));
  readonly #stop = new Int32Array(new SharedArrayBuffer(4));
  readonly #events: WorkerTransportEvents;
  #broken = false;
  #exited = false;
  /** The pool holds calls back until the thread reads (see awaitRoom). */
  #pendingRoom = false;
  #roomTimer: NodeJS.Timeout | undefined;
  #terminateTimer: NodeJS.Timeout | undefined;
  /** Asked to stop by itself: reported gone when this fires (see #abandon). */
  #stopTimer: NodeJS.Timeout | undefined;
  #abandonedTimer: NodeJS.Timeout | undefined;

  constructor(entry: WorkerEntry, events: WorkerTransportEvents, maxFrameBytes: () => number) {
    this.#events = events;
    const workerData: ThreadWorkerData = {
      sandboxThread: true,
      taken: this.#taken.buffer as SharedArrayBuffer,
      stop: this.#stop.buffer as SharedArrayBuffer,
    };
    this.#worker = new Worker(entry.file, {
      argv: entry.args,
      workerData,
      // An environment of its own with only what a worker process gets (PATH, TZ, LANG, LC_ALL, TMPDIR,
      // NODE_PATH — the engine's package may be found through it): the host's (model keys, server
      // secrets) is not copied in, nor shared.
      env: workerEnvironment(),
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    this.id = this.#worker.threadId;
    this.label = `thread ${this.id}`;
    this.#write = createPortWriter((message) => this.#worker.postMessage(message), { wellFormed: false });
    this.#worker.stdout.resume();
    this.#worker.stderr.on('data', (chunk: Buffer) => this.#keepStderr(chunk.toString('utf8')));
    this.#worker.on('message', (message: unknown) => {
      if (this.#broken || this.#exited) return;
      const ok = readPortMessage(message, maxFrameBytes(), events.frame, (reason) => {
        this.#broken = true;
        events.violation(reason);
      });
      // A message may follow the thread reading its port: calls held back for room may start.
      if (ok && this.#pendingRoom) this.#checkRoom();
    });
    this.#worker.on('messageerror', () => events.violation('a message that could not be read'));
    // An uncaught error in the thread (its heap limit: ERR_WORKER_OUT_OF_MEMORY): 'exit' follows.
    this.#worker.on('error', (error: Error) => this.#keepStderr(`${error.name}: ${error.message}\n`));
    this.#worker.on('exit', (code) => this.#exit(code));
  }

  send(header: string, body?: string): void {
    if (this.#exited) return;
    this.#write(header, body);
  }

  /** What the thread has not read, in UTF-16 units of the frames' text (a bound on the memory held for it, as a pipe's bytes are). */
  unsentBytes(): number {
    return untakenUnits(this.#write.sentUnits(), this.#taken);
  }

  /** Looks for room on the thread's next message and every few milliseconds, until it read everything. */
  awaitRoom(): void {
    if (this.#pendingRoom || this.#exited) return;
    this.#pendingRoom = true;
    this.#roomTimer = setInterval(() => this.#checkRoom(), 5);
  }

  /**
   * At once (a thread that broke the protocol: not our code any more), it is terminated. Asked to stop
   * (`afterMs`), it is never terminated: Node terminating a thread while isolated-vm is inside a call into
   * it (a program's calls, logs and timers enter the thread's JavaScript from inside the engine) aborts
   * the host's whole process (seen: `close()` during eight runs' floods of 1 MiB calls, which kept the
   * thread busy for a minute). One that has not ended within `afterMs` is abandoned (see #abandon).
   */
  kill(afterMs = 0): void {
    if (this.#exited) {
      // Abandoned, then broke the protocol: nothing more is read from it; it still ends by itself.
      return;
    }
    if (afterMs > 0) {
      Atomics.store(this.#stop, 0, 1);
      if (this.#stopTimer === undefined && this.#terminateTimer === undefined)
        this.#stopTimer = setTimeout(() => this.#abandon(afterMs), afterMs);
      return;
    }
    this.#terminate();
  }

  /**
   * A thread that did not end within its grace after 'stop' is reported gone (its runs fail, the pool
   * replaces it) and left to end by itself: its event loop is held by the engine (a program's slice,
   * bounded by the run's time limit), and 'stop' is next in its queue. It keeps the host alive meanwhile
   * (an exiting host would terminate it, with the same abort), up to ABANDONED_REF_MS.
   */
  #abandon(afterMs: number): void {
    if (this.#exited) return;
    this.#keepStderr(`the thread did not stop within ${afterMs} ms of being asked to: it is left to end by itself\n`);
    this.#abandonedTimer = setTimeout(() => this.#worker.unref(), ABANDONED_REF_MS);
    this.#abandonedTimer.unref();
    this.#worker.once('exit', () => clearTimeout(this.#abandonedTimer));
    this.#worker.ref();
    this.#exit(null);
  }

  #terminate(): void {
    if (this.#exited || this.#terminateTimer !== undefined) return;
    clearTimeout(this.#stopTimer);
    void this.#worker.terminate();
    // A thread blocked in native code (an engine that never returns) cannot be stopped: it is reported
    // gone, its runs fail, and it no longer keeps the host alive. Its CPU stays taken: a process would be killed.
    this.#terminateTimer = setTimeout(() => {
      this.#keepStderr(`the thread did not stop within ${TERMINATE_GRACE_MS} ms of being terminated\n`);
      this.#worker.unref();
      this.#exit(null);
    }, TERMINATE_GRACE_MS);
  }

  ref(): void {
    if (!this.#exited) this.#worker.ref();
  }

  unref(): void {
    if (!this.#exited) this.#worker.unref();
  }

  #checkRoom(): void {
    if (untakenUnits(this.#write.sentUnits(), this.#taken) > 0 && !this.#exited) return;
    this.#stopRoomChecks();
    this.#events.writable();
  }

  #stopRoomChecks(): void {
    this.#pendingRoom = false;
    clearInterval(this.#roomTimer);
  }

  #keepStderr(text: string): void {
    this.stderr = (this.stderr + text).slice(-2000);
  }

  #exit(code: number | null): void {
    if (this.#exited) return;
    this.#exited = true;
    clearTimeout(this.#terminateTimer);
    clearTimeout(this.#stopTimer);
    this.#stopRoomChecks();
    this.#events.exited(code, null);
  }
}

/**
 * How the pool reaches one sandbox worker: a child process with frames on a pipe (process-transport.ts)
 * or a worker thread of the host's process with frames over its message port (thread-transport.ts).
 * A transport only carries frames and reports the worker's end; what a frame may say, and killing a
 * worker that breaks the contract, is the pool worker's (pool-worker.ts), one code path for both.
 */
import type { Frame } from './frames.js';
import type { WorkerEntry } from './worker-entry.js';

/** Where a sandbox worker runs: its own process (`process`), or a thread of the host's (`thread`). */
export type WorkerTransportKind = 'process' | 'thread';

/** What a transport tells its pool worker. */
export interface WorkerTransportEvents {
  /** A whole frame arrived within the size cap (its header is not read yet). */
  frame(frame: Frame): void;
  /** What arrived cannot be a frame (too large, not UTF-8, not the framing): nothing more is read. */
  violation(reason: string): void;
  /** Frames sent earlier were taken by the worker: calls held back for room may start. */
  writable(): void;
  /** The channel or the worker failed (the worker is to be killed). */
  failed(): void;
  /** The worker ended: its exit code, or the signal that ended it (processes; a thread's error is in `stderr`). */
  exited(code: number | null, signal: NodeJS.Signals | null): void;
}

export interface WorkerTransport {
  readonly kind: WorkerTransportKind;
  /** The worker's id: its process id, or its thread id. */
  readonly id: number;
  /** The id in words, for messages: `pid 1234` or `thread 3`. */
  readonly label: string;
  /** Sends one frame; frames of one turn of the event loop leave together. */
  send(header: string, body?: string): void;
  /** Bytes sent that the worker has not taken yet (queued here, in the pipe, or unread on its port). */
  unsentBytes(): number;
  /** Calls wait for room: report `writable` once the worker took what was sent (a pipe reports it by itself). */
  awaitRoom(): void;
  /**
   * Ends the worker (SIGKILL, or terminating the thread); `exited` follows. With `afterMs`, the worker
   * was asked to stop by itself: it is ended only if it has not within that time.
   */
  kill(afterMs?: number): void;
  /** Whether the worker keeps the host's event loop alive. */
  ref(): void;
  unref(): void;
  /** The end of what the worker wrote to stderr, and of its error if it failed (for the reason it died). */
  readonly stderr: string;
}

/** Starts a transport of `kind` for `entry`; `maxFrameBytes` caps every frame from the worker. */
export type StartTransport = (entry: WorkerEntry, events: WorkerTransportEvents, maxFrameBytes: () => number) => WorkerTransport;

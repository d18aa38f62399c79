/**
 * A sandbox worker in a child process: frames on a pipe on its file descriptor 3, its stderr kept for
 * the reason it died, none of the host's environment.
 */
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { createFrameReader, createFrameWriter, type FrameWriter } from './frames.js';
import { spawnWorkerProcess, takePrestartedWorker } from './prestart.js';
import type { WorkerEntry } from './worker-entry.js';
import type { WorkerTransport, WorkerTransportEvents } from './worker-transport.js';

export class ProcessTransport implements WorkerTransport {
  readonly kind = 'process';
  readonly id: number;
  readonly label: string;
  stderr = '';
  readonly #child: ChildProcess;
  readonly #channel: Socket;
  readonly #write: FrameWriter;

  constructor(entry: WorkerEntry, events: WorkerTransportEvents, maxFrameBytes: () => number) {
    // A worker started ahead of the pool from the same command line (prestart.ts), or a new one.
    this.#child = takePrestartedWorker(entry) ?? spawnWorkerProcess(entry);
    this.id = this.#child.pid ?? -1;
    this.label = `pid ${this.id}`;
    this.#channel = this.#child.stdio[3] as Socket;
    // Calls held back while replies piled up start again once they went out: on 'drain', or after a
    // write the socket took whole (which emits no 'drain').
    this.#write = createFrameWriter(this.#channel, () => events.writable());
    this.#child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-2000);
    });
    (this.#child.stderr as Socket | null)?.unref();
    this.#channel.on('data', createFrameReader({ maxFrameBytes, onFrame: events.frame, onViolation: events.violation }));
    this.#channel.on('drain', () => events.writable());
    this.#channel.on('error', () => events.failed());
    this.#child.on('error', () => events.failed());
    this.#child.on('exit', (code, signal) => events.exited(code, signal));
  }

  send(header: string, body?: string): void {
    this.#write(header, body);
  }

  unsentBytes(): number {
    return this.#write.unsentBytes();
  }

  /** The pipe's 'drain' (or a write taken whole) reports room by itself. */
  awaitRoom(): void {}

  /** A process is killed at once, whatever it was asked: it dies alone. */
  kill(): void {
    this.#child.kill('SIGKILL');
  }

  ref(): void {
    this.#child.ref();
    this.#channel.ref();
  }

  unref(): void {
    this.#child.unref();
    this.#channel.unref();
  }
}

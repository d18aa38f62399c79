/**
 * The sandbox worker's side of its channel to the host: frames on file descriptor 3 in a worker process,
 * or over the thread's port on a sandbox thread (thread-frames.ts). The host is trusted here; a broken
 * channel ends the worker.
 */
import { Socket } from 'node:net';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createFrameReader, createFrameWriter } from './frames.js';
import { countTaken, createPortWriter, type ThreadWorkerData } from './thread-frames.js';

/** The host is trusted here; the limit only bounds a broken pipe's damage. */
const MAX_FRAME_BYTES = 1024 * 1024 * 1024;

export interface HostChannel {
  /** Where this worker runs: its own process (`worker`), or a thread of the host's process (`thread`). */
  placement: 'worker' | 'thread';
  post(header: string, body?: string): void;
  /** The host asked this worker to stop, seen without its event loop (a thread's shared flag; a process is killed instead). */
  stopRequested(): boolean;
  /**
   * Ends this worker once its engine has let go: a thread closes its port and ends when its event loop is
   * empty (`process.exit()` there, with isolated-vm's last tasks of a disposed isolate still to run,
   * aborted the process); a process exits.
   */
  end(): void;
}

/** Opens the channel; `onFrame` gets each frame of the host. Exits the worker when there is none, or when it breaks or closes. */
export function openHostChannel(onFrame: (frame: { header: string; body: string }) => void): HostChannel {
  const data = workerData as Partial<ThreadWorkerData> | null;
  if (!isMainThread && parentPort !== null && data?.sandboxThread === true && data.taken instanceof SharedArrayBuffer) {
    const port = parentPort;
    const taken = new Int32Array(data.taken);
    const stop = data.stop instanceof SharedArrayBuffer ? new Int32Array(data.stop) : undefined;
    port.on('message', (message: string[]) => {
      for (let index = 0; index < message.length; index += 2) {
        const header = message[index] as string;
        const body = message[index + 1] as string;
        countTaken(taken, header, body);
        onFrame({ header, body });
      }
    });
    const post = createPortWriter((message) => port.postMessage(message), { wellFormed: true });
    return {
      placement: 'thread',
      post,
      stopRequested: () => stop !== undefined && Atomics.load(stop, 0) === 1,
      end: () => port.close(),
    };
  }
  let channel: Socket;
  try {
    channel = new Socket({ fd: 3, readable: true, writable: true });
  } catch {
    process.stderr.write(
      'sandbox-worker must be started by the sandbox worker pool (it reads frames on fd 3, or runs on a sandbox thread)\n',
    );
    process.exit(1);
  }
  channel.on('data', createFrameReader({ maxFrameBytes: MAX_FRAME_BYTES, onFrame, onViolation: () => process.exit(1) }));
  channel.on('close', () => process.exit(0));
  channel.on('error', () => process.exit(0));
  return { placement: 'worker', post: createFrameWriter(channel), stopRequested: () => false, end: () => process.exit(0) };
}

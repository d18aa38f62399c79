/**
 * Frames between the host and a sandbox worker on a thread of the host's process: the same header and
 * body texts as on a pipe (frames.ts), posted over the thread's message port as one flat array of
 * strings per turn of the event loop (`[header, body, header, body, …]`). Strings cross by a copy, not by
 * UTF-8 encoding and decoding (measured faster per call than posting encoded frames: see runtime/README.md).
 * Both sides import this file.
 *
 * A port has no write buffer to measure, so the host counts what it posted and the thread counts, in a
 * shared counter, what it took: the difference is what the thread has not read (a thread that computes
 * or never reads would otherwise have every reply of its runs queued on its port).
 */
import type { Frame } from './frames.js';

/** What the host gives a sandbox thread as its `workerData`. */
export interface ThreadWorkerData {
  /** Marks a sandbox thread (a worker entry started otherwise ignores it). */
  sandboxThread: true;
  /** One Int32 counter: the size (in UTF-16 units) of the frames the thread took, modulo 2³². */
  taken: SharedArrayBuffer;
  /**
   * One Int32 the host sets to 1 when it asks the thread to stop: seen at the thread's next call, log line or
   * timer even while a program's slice holds its event loop (the 'stop' frame waits behind that slice).
   */
  stop: SharedArrayBuffer;
}

/** Posts frames; a turn's frames leave in one message. `sentUnits` counts what was posted (UTF-16 units, modulo 2³²). */
export type PortWriter = ((header: string, body?: string) => void) & { sentUnits(): number };

/** Frames held for one message up to this size (UTF-16 units); past it they are posted at once. */
const FLUSH_UNITS = 1024 * 1024;

/**
 * Writes frames with `post`. `wellFormed`: text with lone surrogates is made well-formed first, as the
 * UTF-8 encoding of a pipe does (the sandbox side: what the host receives is then always valid text).
 */
export function createPortWriter(post: (message: string[]) => void, options: { wellFormed: boolean }): PortWriter {
  let pending: string[] = [];
  let pendingUnits = 0;
  let sent = 0;
  const flush = (): void => {
    if (pending.length === 0) return;
    const message = pending;
    pending = [];
    pendingUnits = 0;
    post(message);
  };
  const write = (header: string, body = ''): void => {
    if (pending.length === 0) process.nextTick(flush);
    if (options.wellFormed && !isWellFormed(body)) body = toWellFormed(body);
    pending.push(header, body);
    pendingUnits += header.length + body.length;
    sent = (sent + header.length + body.length) >>> 0;
    // Large frames leave at once: a turn's frames would otherwise all be held here (a program's
    // hundred 8 MiB calls of one slice, 800 MiB on a thread's bounded heap, whose limit ends the host).
    if (pendingUnits >= FLUSH_UNITS) flush();
  };
  return Object.assign(write, { sentUnits: () => sent });
}

/**
 * Reads one message of a sandbox thread: each frame is handed on, or `onViolation` is called for the
 * first that is not a frame (not an array of pairs of strings, a frame past `maxFrameBytes` in UTF-8,
 * text with lone surrogates, which a pipe's UTF-8 could not carry) and the rest is dropped.
 */
export function readPortMessage(
  message: unknown,
  maxFrameBytes: number,
  onFrame: (frame: Frame) => void,
  onViolation: (reason: string) => void,
): boolean {
  if (!Array.isArray(message) || message.length % 2 !== 0) {
    onViolation('a message that is not a list of frames');
    return false;
  }
  for (let index = 0; index < message.length; index += 2) {
    const header: unknown = message[index];
    const body: unknown = message[index + 1];
    if (typeof header !== 'string' || typeof body !== 'string') {
      onViolation('a frame that is not text');
      return false;
    }
    const headerBytes = Buffer.byteLength(header, 'utf8');
    const bodyBytes = Buffer.byteLength(body, 'utf8');
    if (4 + headerBytes + bodyBytes > maxFrameBytes) {
      onViolation(`a frame of ${4 + headerBytes + bodyBytes} bytes (limit ${maxFrameBytes})`);
      return false;
    }
    if (!isWellFormed(header) || !isWellFormed(body)) {
      onViolation('a frame that is not UTF-8 text');
      return false;
    }
    onFrame({ header, body, bodyBytes });
  }
  return true;
}

/** The thread's side of the count: adds a frame it took. */
export function countTaken(taken: Int32Array, header: string, body: string): void {
  Atomics.add(taken, 0, header.length + body.length);
}

/** Units posted to the thread and not taken yet. */
export function untakenUnits(sentUnits: number, taken: Int32Array): number {
  return (sentUnits - Atomics.load(taken, 0)) >>> 0;
}

// ES2024's String methods (Node 20 has them; the project's lib is ES2023).
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };
const isWellFormed = (text: string): boolean => (text as WellFormedString).isWellFormed();
const toWellFormed = (text: string): string => (text as WellFormedString).toWellFormed();

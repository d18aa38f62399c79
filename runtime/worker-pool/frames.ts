/**
 * Length-prefixed frames on the pipe between the host and a sandbox worker: `u32 length of the rest`,
 * `u32 header length`, a small JSON header, then a body of UTF-8 text that is never parsed on the way
 * (a call's arguments, a reply's value, a log line, a run's result). Writes made in one turn of the
 * event loop leave in one system call.
 */
import { isUtf8 } from 'node:buffer';
import type { Socket } from 'node:net';

export interface Frame {
  header: string;
  body: string;
  /** The body's size in bytes, as it crossed (its UTF-8 length). */
  bodyBytes: number;
}

const PREFIX_BYTES = 8;

/**
 * Encodes a frame, sized exactly (a buffer sized for the longest encoding, three bytes a unit, was
 * measured slower from ~1.4 KB up, and held three times the memory while queued).
 */
export function encodeFrame(header: string, body = ''): Buffer {
  const headerBytes = Buffer.byteLength(header, 'utf8');
  const bodyBytes = body === '' ? 0 : Buffer.byteLength(body, 'utf8');
  const frame = Buffer.allocUnsafe(PREFIX_BYTES + headerBytes + bodyBytes);
  frame.writeUInt32LE(4 + headerBytes + bodyBytes, 0);
  frame.writeUInt32LE(headerBytes, 4);
  frame.write(header, PREFIX_BYTES, 'utf8');
  if (bodyBytes > 0) frame.write(body, PREFIX_BYTES + headerBytes, 'utf8');
  return frame;
}

/** Sends one frame; `unsentBytes` counts the frames not yet taken by the other side (queued here or in the socket). */
export type FrameWriter = ((header: string, body?: string) => void) & { unsentBytes(): number };

/**
 * Writes frames to `socket`, the frames of one turn in one write. A turn's only frame (a sequential
 * call, its reply) goes out as a plain write: corking it costs a vectored write of one buffer.
 * `onWritable` is called after a turn's frames went out when the socket took them all (no 'drain'
 * will follow: a caller waiting for room must hear it here).
 */
export function createFrameWriter(socket: Socket, onWritable?: () => void): FrameWriter {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = (): void => {
    const frames = pending;
    pending = [];
    pendingBytes = 0;
    if (socket.destroyed) return;
    if (frames.length === 1) socket.write(frames[0] as Buffer);
    else {
      socket.cork();
      for (const frame of frames) socket.write(frame);
      socket.uncork();
    }
    if (onWritable !== undefined && !socket.writableNeedDrain) onWritable();
  };
  const write = (header: string, body?: string): void => {
    if (socket.destroyed) return;
    if (pending.length === 0) process.nextTick(flush);
    const frame = encodeFrame(header, body);
    pending.push(frame);
    pendingBytes += frame.length;
  };
  return Object.assign(write, { unsentBytes: () => pendingBytes + socket.writableLength });
}

/**
 * Reads frames from a byte stream. A frame announcing more than `maxFrameBytes` is a protocol
 * violation: `onViolation` is called and nothing more is read (the sender is not trusted to stop).
 */
export function createFrameReader(options: {
  maxFrameBytes: number | (() => number);
  onFrame: (frame: Frame) => void;
  onViolation: (reason: string) => void;
}): (chunk: Buffer) => void {
  let chunks: Buffer[] = [];
  let buffered = 0;
  let broken = false;

  const take = (bytes: number): Buffer => {
    const first = chunks[0] as Buffer;
    if (first.length >= bytes) {
      const out = first.subarray(0, bytes);
      if (first.length === bytes) chunks.shift();
      else chunks[0] = first.subarray(bytes);
      buffered -= bytes;
      return out;
    }
    const all = Buffer.concat(chunks, buffered);
    const out = all.subarray(0, bytes);
    chunks = all.length > bytes ? [all.subarray(bytes)] : [];
    buffered -= bytes;
    return out;
  };
  const peekLength = (): number => {
    const first = chunks[0] as Buffer;
    if (first.length >= 4) return first.readUInt32LE(0);
    const joined = Buffer.concat(chunks, buffered);
    chunks = [joined];
    return joined.readUInt32LE(0);
  };

  return (chunk) => {
    if (broken) return;
    chunks.push(chunk);
    buffered += chunk.length;
    while (buffered >= PREFIX_BYTES) {
      const length = peekLength();
      const limit = typeof options.maxFrameBytes === 'number' ? options.maxFrameBytes : options.maxFrameBytes();
      if (length < 4 || length > limit) {
        broken = true;
        chunks = [];
        options.onViolation(`a frame of ${length} bytes (limit ${limit})`);
        return;
      }
      if (buffered < 4 + length) return;
      const frame = take(4 + length);
      const headerBytes = frame.readUInt32LE(4);
      if (headerBytes > length - 4) {
        broken = true;
        options.onViolation('a frame whose header is longer than the frame');
        return;
      }
      // Sizes are counted on the bytes that crossed; text that is not UTF-8 would decode to more.
      if (!isUtf8(frame.subarray(PREFIX_BYTES))) {
        broken = true;
        options.onViolation('a frame that is not UTF-8 text');
        return;
      }
      const bodyStart = PREFIX_BYTES + headerBytes;
      options.onFrame({
        header: frame.toString('utf8', PREFIX_BYTES, bodyStart),
        body: frame.toString('utf8', bodyStart),
        bodyBytes: frame.length - bodyStart,
      });
      if (broken) return;
    }
  };
}

/**
 * The frames between the CLI and its daemon over the user's Unix socket: a 4-byte big-endian length,
 * one type byte, the payload. Client to daemon: `R` the command (JSON: argv, cwd, env, terminal), `G`
 * go (the answer to `K`: the command line has not given up and will not run the command itself), `I`
 * bytes of stdin, `E` stdin ended, `S` a signal's name, `Q` stop, `T` status. Daemon to client: `K` the
 * command received (at once: a command line that hears nothing runs it itself; the daemon runs nothing
 * before `G`, so a command is never run twice), `A` the command started
 * in a warm process, `F` not taken (the client runs it itself; the reason as text), `W` the command
 * reads stdin, `O` / `e` bytes of stdout / stderr, `X` how it ended (JSON: code, signal), `J` an answer
 * to `Q` or `T` (JSON).
 */
export type FrameType = 'R' | 'G' | 'I' | 'E' | 'S' | 'Q' | 'T' | 'K' | 'A' | 'F' | 'W' | 'O' | 'e' | 'X' | 'J';

/** The largest frame either side accepts: a command's environment and a chunk of output fit many times over. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface Frame {
  type: FrameType;
  payload: Buffer;
}

export function encodeFrame(type: FrameType, payload: Buffer | string = ''): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const frame = Buffer.allocUnsafe(5 + body.length);
  frame.writeUInt32BE(body.length + 1, 0);
  frame.write(type, 4, 'latin1');
  body.copy(frame, 5);
  return frame;
}

/** Splits a byte stream into frames; throws on a frame over MAX_FRAME_BYTES or an empty one. */
export class FrameReader {
  #pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const frames: Frame[] = [];
    while (this.#pending.length >= 4) {
      const length = this.#pending.readUInt32BE(0);
      if (length === 0 || length > MAX_FRAME_BYTES) throw new Error(`a frame of ${length} bytes (at most ${MAX_FRAME_BYTES})`);
      if (this.#pending.length < 4 + length) break;
      frames.push({
        type: String.fromCharCode(this.#pending[4] as number) as FrameType,
        payload: this.#pending.subarray(5, 4 + length),
      });
      this.#pending = this.#pending.subarray(4 + length);
    }
    return frames;
  }
}

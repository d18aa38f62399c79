import { describe, expect, it } from 'vitest';
import type { Frame } from './frames.js';
import { countTaken, createPortWriter, readPortMessage, untakenUnits } from './thread-frames.js';

function read(message: unknown, maxFrameBytes = 1024): { frames: Frame[]; violation?: string; ok: boolean } {
  const frames: Frame[] = [];
  let violation: string | undefined;
  const ok = readPortMessage(
    message,
    maxFrameBytes,
    (frame) => frames.push(frame),
    (reason) => (violation = reason),
  );
  return { frames, ok, ...(violation === undefined ? {} : { violation }) };
}

describe('frames on a sandbox thread port', () => {
  it('reads each pair of strings as a frame, its body measured in UTF-8 bytes', () => {
    expect(read(['{"t":"log"}', 'héllo', '{"t":"released"}', ''])).toEqual({
      ok: true,
      frames: [
        { header: '{"t":"log"}', body: 'héllo', bodyBytes: 6 },
        { header: '{"t":"released"}', body: '', bodyBytes: 0 },
      ],
    });
  });

  it('refuses what is not a list of pairs of strings, and reads nothing after it', () => {
    expect(read({ t: 'result' })).toMatchObject({ ok: false, frames: [], violation: 'a message that is not a list of frames' });
    expect(read(['{}'])).toMatchObject({ ok: false, violation: 'a message that is not a list of frames' });
    expect(read(['{}', 'a', '{}', 7])).toMatchObject({ ok: false, frames: [{ body: 'a' }], violation: 'a frame that is not text' });
  });

  it('refuses a frame past the cap counted in UTF-8 bytes (as on a pipe: 4 + header + body)', () => {
    expect(read(['{}', 'x'.repeat(1018)]).ok).toBe(true);
    expect(read(['{}', 'x'.repeat(1019)])).toMatchObject({ ok: false, violation: 'a frame of 1025 bytes (limit 1024)' });
    // 400 characters of three bytes each: 1,206 bytes on a pipe.
    expect(read(['{}', '€'.repeat(400)])).toMatchObject({ ok: false, violation: 'a frame of 1206 bytes (limit 1024)' });
  });

  it('refuses text with a lone surrogate (no UTF-8 carries it)', () => {
    expect(read(['{}', 'a\ud800b'])).toMatchObject({ ok: false, violation: 'a frame that is not UTF-8 text' });
    expect(read(['{"t":"\udc00"}', ''])).toMatchObject({ ok: false, violation: 'a frame that is not UTF-8 text' });
    expect(read(['{}', '😀']).ok).toBe(true);
  });

  it("posts a turn's frames in one message; the sandbox side makes lone surrogates well-formed, as a pipe's encoding does", async () => {
    const posted: string[][] = [];
    const write = createPortWriter((message) => posted.push(message), { wellFormed: true });
    write('{"a":1}', 'x\ud800');
    write('{"b":2}');
    expect(posted).toEqual([]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(posted).toEqual([['{"a":1}', 'x\ufffd', '{"b":2}', '']]);
    expect(read(posted[0]).ok).toBe(true);
    expect(write.sentUnits()).toBe(7 + 2 + 7);
  });

  it('counts what the thread has not taken, across the wrap of its 32-bit counter', () => {
    const taken = new Int32Array(new SharedArrayBuffer(4));
    const write = createPortWriter(() => undefined, { wellFormed: false });
    write('h', 'x'.repeat(99));
    expect(untakenUnits(write.sentUnits(), taken)).toBe(100);
    countTaken(taken, 'h', 'x'.repeat(99));
    expect(untakenUnits(write.sentUnits(), taken)).toBe(0);
    // Near 2³²: the difference stays right when both counters wrap.
    Atomics.store(taken, 0, -10);
    expect(untakenUnits((2 ** 32 - 10 + 25) >>> 0, taken)).toBe(25);
    expect(untakenUnits(15, taken)).toBe(25);
  });
});

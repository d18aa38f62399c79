import { describe, expect, it } from 'vitest';
import { createFrameReader, encodeFrame, type Frame } from './frames.js';

function reader(maxFrameBytes = 1024 * 1024): { push: (chunk: Buffer) => void; frames: Frame[]; violations: string[] } {
  const frames: Frame[] = [];
  const violations: string[] = [];
  const push = createFrameReader({
    maxFrameBytes,
    onFrame: (frame) => frames.push(frame),
    onViolation: (reason) => violations.push(reason),
  });
  return { push, frames, violations };
}

describe('frames', () => {
  it('reads frames split at every byte, and several frames in one chunk', () => {
    const bytes = Buffer.concat([encodeFrame('{"t":"a"}', 'body ✓ 𝄞'), encodeFrame('{"t":"b"}'), encodeFrame('{"t":"c"}', '"x"')]);
    const split = reader();
    for (let index = 0; index < bytes.length; index++) split.push(bytes.subarray(index, index + 1));
    const whole = reader();
    whole.push(bytes);
    for (const { frames, violations } of [split, whole]) {
      expect(violations).toEqual([]);
      expect(frames).toEqual([
        { header: '{"t":"a"}', body: 'body ✓ 𝄞', bodyBytes: Buffer.byteLength('body ✓ 𝄞') },
        { header: '{"t":"b"}', body: '', bodyBytes: 0 },
        { header: '{"t":"c"}', body: '"x"', bodyBytes: 3 },
      ]);
    }
  });

  it('encodes exact lengths, a lone surrogate as U+FFFD', () => {
    const frame = encodeFrame('{"t":"é"}', 'a\ud800b');
    expect(frame.readUInt32LE(0)).toBe(frame.length - 4);
    expect(frame.readUInt32LE(4)).toBe(Buffer.byteLength('{"t":"é"}'));
    const { push, frames, violations } = reader();
    push(frame);
    expect(violations).toEqual([]);
    expect(frames).toEqual([{ header: '{"t":"é"}', body: 'a\ufffdb', bodyBytes: 5 }]);
  });

  it('refuses a frame that is not UTF-8 (its size would not be the size of its text), and reads nothing after', () => {
    const { push, frames, violations } = reader();
    const frame = encodeFrame('{"t":"x"}', 'abcd');
    frame.fill(0xff, frame.length - 4);
    push(Buffer.concat([frame, encodeFrame('{"t":"later"}')]));
    expect(violations).toEqual(['a frame that is not UTF-8 text']);
    expect(frames).toEqual([]);
  });

  it('refuses a frame announcing more than the limit before buffering it, and reads nothing after', () => {
    const { push, frames, violations } = reader(1024);
    const prefix = Buffer.alloc(8);
    prefix.writeUInt32LE(0x7fffffff, 0);
    prefix.writeUInt32LE(4, 4);
    push(prefix);
    push(encodeFrame('{"t":"later"}'));
    expect(violations).toEqual(['a frame of 2147483647 bytes (limit 1024)']);
    expect(frames).toEqual([]);
  });

  it('refuses a header longer than its frame', () => {
    const { push, violations } = reader();
    const frame = Buffer.alloc(12);
    frame.writeUInt32LE(8, 0);
    frame.writeUInt32LE(100, 4);
    push(frame);
    expect(violations).toEqual(['a frame whose header is longer than the frame']);
  });

  it('follows a limit that changes between frames', () => {
    let limit = 64;
    const frames: Frame[] = [];
    const violations: string[] = [];
    const push = createFrameReader({
      maxFrameBytes: () => limit,
      onFrame: (frame) => frames.push(frame),
      onViolation: (reason) => violations.push(reason),
    });
    push(encodeFrame('{}', 'x'.repeat(40)));
    limit = 16;
    push(encodeFrame('{}', 'x'.repeat(40)));
    expect(frames).toHaveLength(1);
    expect(violations).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { previewJson } from './preview-json.js';

describe('previewJson', () => {
  it('is JSON.stringify for values that fit', () => {
    const value = { a: [1, 'two', null, true], b: { c: 'd' } };
    expect(previewJson(value)).toBe(JSON.stringify(value));
  });

  it('cuts a value past the limit and says so', () => {
    expect(previewJson({ data: 'x'.repeat(100) }, 20)).toBe(`${'{"data":"xxxxxxxxxxx'}…`);
    expect(
      previewJson(
        Array.from({ length: 1000 }, (_, index) => index),
        10,
      ),
    ).toBe('[0,1,2,3,4…');
  });

  it('stays small for a megabyte string', () => {
    expect(previewJson({ data: 'y'.repeat(1024 * 1024) }).length).toBeLessThanOrEqual(2001);
  });
});

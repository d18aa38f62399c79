import { describe, expect, it } from 'vitest';
import { utf8SizeOver } from './utf8-size.js';

describe('utf8SizeOver', () => {
  it('answers from the length when three bytes a unit still fit', () => {
    expect(utf8SizeOver('abc', 9)).toBeUndefined();
    expect(utf8SizeOver('€€€', 9)).toBeUndefined();
  });

  it('counts the bytes when the length cannot decide', () => {
    expect(utf8SizeOver('€€€', 8)).toBe(9);
    expect(utf8SizeOver('abc', 8)).toBeUndefined();
    expect(utf8SizeOver('abcd', 3)).toBe(4);
  });

  it('counts a surrogate pair as four bytes', () => {
    expect(utf8SizeOver('😀', 3)).toBe(4);
    expect(utf8SizeOver('😀', 4)).toBeUndefined();
  });
});

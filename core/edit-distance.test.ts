import { describe, expect, it } from 'vitest';
import { closestKey, editDistance } from './edit-distance.js';

describe('editDistance', () => {
  it('counts insertions, deletions and replacements', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('mcp-everythin', 'mcp-everything')).toBe(1);
  });
  it('counts a swap of two neighbours as one edit', () => {
    expect(editDistance('reqiures', 'requires')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('abc', 'ca')).toBe(3);
  });
  it('is symmetric', () => {
    for (const [a, b] of [
      ['timeoutMs', 'timeotuMs'],
      ['sandbox', 'sandobx'],
      ['x', 'xyz'],
    ] as const)
      expect(editDistance(a, b)).toBe(editDistance(b, a));
  });
});

describe('closestKey', () => {
  it('ignores case and separators, and between equally close names takes the one closer as written', () => {
    expect(closestKey('train_schedule', ['trainSchedule', 'crm'])).toBe('trainSchedule');
    expect(closestKey('std-f', ['std', 'std-fs'])).toBe('std-fs');
    expect(closestKey('weather', ['crm', 'std'])).toBeUndefined();
  });
});

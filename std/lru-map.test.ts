import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map.js';

describe('LruMap', () => {
  it('drops the least recently used entry past its size; get refreshes, peek does not', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([map.peek('a'), map.peek('b'), map.peek('c')]).toEqual([1, undefined, 3]);
    expect(map.peek('a')).toBe(1);
    map.set('d', 4);
    expect([map.peek('a'), map.peek('c'), map.peek('d'), map.size]).toEqual([undefined, 3, 4, 2]);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => new LruMap(0)).toThrow('maxEntries must be a positive integer (got 0)');
  });
});

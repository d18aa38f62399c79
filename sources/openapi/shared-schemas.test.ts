import { describe, expect, it } from 'vitest';
import { findSharedSchemas, MIN_SHARED_SCHEMA_CHARS } from './shared-schemas.js';

/** An object schema of about `fields` × 40 characters written out. */
const big = (fields: number, tag = 'x') => ({
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: fields }, (_, i) => [`${tag}${i}`, { type: 'string', description: `field ${i}` }])),
});

describe('findSharedSchemas', () => {
  it('finds an object used at several places (an alias), named after its first place', () => {
    const shared = big(20);
    const shared2 = big(20, 'y');
    const found = findSharedSchemas(
      [
        [{ type: 'array', items: shared }, '/a'],
        [{ properties: { p: shared, q: shared2 } }, '/b'],
      ],
      new Map(),
    );
    expect(found.get(shared)).toBe('/a/items');
    expect(found.has(shared2)).toBe(false);
  });

  it('finds equal schemas at several places, one pointer for the group; small ones stay inline', () => {
    const [one, two] = [big(20), big(20)];
    const small = { type: 'string' };
    const found = findSharedSchemas([[{ properties: { one, two, s1: small, s2: small } }, '/r']], new Map());
    expect(found.get(one)).toBe('/r/properties/one');
    expect(found.get(two)).toBe('/r/properties/one');
    expect(found.has(small)).toBe(false);
    expect(JSON.stringify(small).length).toBeLessThan(MIN_SHARED_SCHEMA_CHARS);
  });

  it('leaves named schemas (components, $ref targets) to their names, and ends at their cycles', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} };
    (node.properties as Record<string, unknown>).children = { type: 'array', items: node };
    const found = findSharedSchemas(
      [
        [node, '/components/schemas/Node'],
        [{ items: node }, '/x'],
        [{ items: node }, '/y'],
      ],
      new Map([[node, 'Node']]),
    );
    expect(found.size).toBe(0);
  });

  it('counts each object once however it is reached: a ten-fold, ten-level DAG is walked in linear time', () => {
    let level: Record<string, unknown> = big(10);
    const levels = [level];
    for (let depth = 0; depth < 10; depth++) {
      level = { type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`c${i}`, level])) };
      levels.push(level);
    }
    const found = findSharedSchemas([[level, '/top']], new Map());
    // Every level but the top is used ten times; written out, the top would be 10^10 leaves.
    for (const shared of levels.slice(0, -1)) expect(found.has(shared)).toBe(true);
    expect(found.has(level)).toBe(false);
  });
});

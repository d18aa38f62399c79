import { describe, expect, it } from 'vitest';
import { localRefSegments, resolveRef, resolveSegments, toPointer } from './json-pointer.js';

describe('JSON pointers of $ref', () => {
  it.each([
    ['#', []],
    ['#/$defs/node', ['$defs', 'node']],
    ['#/$defs/a~1b/properties/c~0d', ['$defs', 'a/b', 'properties', 'c~d']],
    ['#/$defs/with%20space', ['$defs', 'with space']],
    ['#anchor', undefined],
    ['other.json#/x', undefined],
    ['#/bad%E0%A4%A', undefined],
  ])('%s → %j', (ref, expected) => {
    expect(localRefSegments(ref)).toEqual(expected);
  });

  it.each([
    ['https://example.test/s/order.json', 'https://example.test/s/order.json#/$defs/item', ['$defs', 'item']],
    ['https://example.test/s/order.json', 'order.json#/$defs/item', ['$defs', 'item']],
    ['https://example.test/s/order.json', 'order.json', []],
    ['order.json', 'order.json#/$defs/item', ['$defs', 'item']],
    ['https://example.test/s/order.json', 'item.json#/x', undefined],
    ['https://example.test/s/order.json', 'https://other.test/s/order.json#/x', undefined],
  ])('with the root $id %s, %s → %j', (id, ref, expected) => {
    expect(localRefSegments(ref, id)).toEqual(expected);
  });

  it('encodes segments back', () => {
    expect(toPointer(['$defs', 'a/b', 'c~d'])).toBe('/$defs/a~1b/c~0d');
  });

  it('resolves own keys and array indexes only', () => {
    const root = { $defs: { a: { anyOf: [{ type: 'string' }] } } };
    expect(resolveSegments(root, ['$defs', 'a', 'anyOf', '0'])).toEqual({ type: 'string' });
    expect(resolveSegments(root, ['$defs', 'toString'])).toBeUndefined();
    expect(resolveSegments(root, ['$defs', 'a', 'anyOf', '01'])).toBeUndefined();
  });

  it('resolves a $ref against the nearest enclosing $id: back to the root, inside a nested resource, by anchor', () => {
    const root = {
      $id: 'https://example.test/root.json',
      type: 'object',
      properties: {
        child: {
          $id: 'https://example.test/sub/child.json',
          type: 'object',
          properties: {
            back: { $ref: '../root.json' },
            self: { $ref: '#/properties/leaf' },
            leaf: { type: 'string' },
            named: { $ref: '#tip' },
          },
          $defs: { tip: { $anchor: 'tip', type: 'number' } },
        },
        direct: { $ref: 'sub/child.json#/properties/leaf' },
        up: { $ref: '#' },
        away: { $ref: 'https://elsewhere.test/x.json' },
      },
      // Data, not schemas: an $id here names nothing.
      examples: [{ $id: 'https://example.test/fake.json' }],
    };
    const child = ['properties', 'child'];
    expect(resolveRef(root, '../root.json', [...child, 'properties', 'back'])).toEqual([]);
    expect(resolveRef(root, '#/properties/leaf', [...child, 'properties', 'self'])).toEqual([...child, 'properties', 'leaf']);
    expect(resolveRef(root, '#tip', [...child, 'properties', 'named'])).toEqual([...child, '$defs', 'tip']);
    expect(resolveRef(root, 'sub/child.json#/properties/leaf', ['properties', 'direct'])).toEqual([...child, 'properties', 'leaf']);
    expect(resolveRef(root, '#', ['properties', 'up'])).toEqual([]);
    expect(resolveRef(root, 'https://elsewhere.test/x.json', ['properties', 'away'])).toBeUndefined();
    expect(resolveRef(root, 'https://example.test/fake.json', [])).toBeUndefined();
    // Without a root $id, a nested relative $id is still its own resource.
    const plain = {
      type: 'object',
      properties: { c: { $id: 'c.json', properties: { x: { $ref: '#/properties/y' }, y: { type: 'null' } } } },
    };
    expect(resolveRef(plain, '#/properties/y', ['properties', 'c', 'properties', 'x'])).toEqual(['properties', 'c', 'properties', 'y']);
    expect(resolveRef(plain, '#/properties/c', [])).toEqual(['properties', 'c']);
  });
});

import { describe, expect, it } from 'vitest';
import { localRefSegments, resolveSegments, toPointer } from './json-pointer.js';

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
});

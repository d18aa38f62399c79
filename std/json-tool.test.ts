import { describe, expect, it } from 'vitest';
import { createJsonTool, queryPath } from './json-tool.js';
import { callTool } from './test-support/call-tool.js';

describe('std json', () => {
  const value = { items: [{ name: 'a', tags: ['x'] }, { name: 'b' }], 'odd key': 1, zero: 0 };

  it.each<[string, unknown]>([
    ['items[0].name', 'a'],
    ['items.1.name', 'b'],
    ['items[0].tags[0]', 'x'],
    ['["odd key"]', 1],
    ['zero', 0],
    ['', value],
    ['items[5].name', undefined],
    ['items.length', 2],
    ['toString', undefined],
  ])('queries %s', (path, expected) => {
    expect(queryPath(value, path)).toEqual(expected);
  });

  it('parses, stringifies and answers null for a missing path', async () => {
    const json = createJsonTool();
    await expect(callTool(json, 'parse', { text: '{"a":[1,2]}' })).resolves.toEqual({ a: [1, 2] });
    await expect(callTool(json, 'parse', { text: '{oops' })).rejects.toThrow(SyntaxError);
    await expect(callTool(json, 'stringify', { value: { a: 1 } })).resolves.toBe('{"a":1}');
    await expect(callTool(json, 'stringify', { value: { a: 1 }, indent: 2 })).resolves.toBe('{\n  "a": 1\n}');
    await expect(callTool(json, 'query', { value, path: 'missing.deep' })).resolves.toBeNull();
  });
});

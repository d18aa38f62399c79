import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, createJsonTool, nestingDepth, queryPath, stringifyWithin } from './json-tool.js';
import { callTool } from './test-support/call-tool.js';
import { toolCallErrorOf } from '../test/support/tool-call-error-of.js';

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

describe('std json: host budgets', () => {
  const json = createJsonTool();

  it('measures indented output exactly, refusing it one character past the limit before building it', () => {
    const values: unknown[] = [
      { a: [1, { b: [] }, {}], c: 'x' },
      [[[['deep']]]],
      { 'key with "quotes"': [true, null, 1.5] },
      'plain',
      [],
      {},
    ];
    for (const value of values) {
      for (const indent of [1, 2, 10]) {
        const text = JSON.stringify(value, null, indent);
        expect(stringifyWithin(value, indent, text.length)).toBe(text);
        expect(() => stringifyWithin(value, indent, text.length - 1)).toThrow('would be larger than');
      }
    }
  });

  it('refuses a small deep value whose indentation would be megabytes', async () => {
    // 1 000 levels: 2 KiB as compact JSON, about 10 MB with indent 10.
    let deep: unknown = 0;
    for (let level = 0; level < 1000; level += 1) deep = [deep];
    const error = await toolCallErrorOf(callTool(json, 'stringify', { value: deep, indent: 10 }));
    expect(error).toMatchObject({ code: 'RESULT_TOO_LARGE', details: { maxResultBytes: 1024 * 1024 } });
    expect(error.message).toBe(
      'the indented JSON text would be larger than 1 MiB, the most a std result may be: write a smaller value, or with less indent',
    );
    await expect(callTool(json, 'stringify', { value: deep })).resolves.toHaveLength(2001);
  });

  it('refuses JSON text nested deeper than the limit, without parsing it, and long texts', async () => {
    const text = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const error = await toolCallErrorOf(callTool(json, 'parse', { text }));
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: `the JSON text nests deeper than ${MAX_JSON_DEPTH} levels: flatten it`,
    });
    await expect(callTool(json, 'parse', { text: `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}` })).resolves.toBeInstanceOf(
      Array,
    );
    expect(nestingDepth('{"a": "[[[[", "b": [{"c": "\\"}]}', 10)).toBe(3);
    await expect(callTool(createJsonTool({ maxInputChars: 10 }), 'parse', { text: '"0123456789"' })).rejects.toThrow(/10/);
  });
});

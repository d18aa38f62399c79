import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSchemaCompiler, type SchemaIssue } from './schema-validator.js';

const byPath = (issues: SchemaIssue[]): SchemaIssue[] => [...issues].sort((a, b) => a.path.localeCompare(b.path));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createSchemaCompiler', () => {
  it('reports each problem with a readable path', () => {
    const check = createSchemaCompiler()({
      type: 'object',
      properties: {
        user: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } },
        mode: { enum: ['a', 'b'] },
      },
      required: ['mode'],
      additionalProperties: false,
    });
    expect(byPath(check({ user: { tags: ['x', 2] }, extra: 1 }))).toEqual([
      { path: 'extra', message: 'is not allowed (no such property)' },
      { path: 'mode', message: 'is required' },
      { path: 'user.tags[1]', message: 'must be string (got 2)' },
    ]);
    expect(check({ mode: 'c' })).toEqual([{ path: 'mode', message: 'must be one of "a", "b" (got "c")' }]);
  });

  it('resolves a $ref against the root $id, absolute or relative', () => {
    const check = createSchemaCompiler()({
      $id: 'https://example.test/schemas/order.json',
      type: 'object',
      properties: {
        item: { $ref: 'https://example.test/schemas/order.json#/definitions/item' },
        gift: { $ref: 'order.json#/definitions/item' },
      },
      definitions: { item: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
    });
    expect(check({ item: { sku: 'a' }, gift: { sku: 'b' } })).toEqual([]);
    expect(byPath(check({ item: { sku: 1 }, gift: {} }))).toEqual([
      { path: 'gift.sku', message: 'is required' },
      { path: 'item.sku', message: 'must be string (got 1)' },
    ]);
  });

  it('compiles two different schemas that share one $id', () => {
    const compile = createSchemaCompiler();
    const first = compile({ $id: 'https://example.test/args.json', type: 'object', properties: { a: { type: 'string' } } });
    const second = compile({ $id: 'https://example.test/args.json', type: 'object', properties: { a: { type: 'number' } } });
    expect(first({ a: 'x' })).toEqual([]);
    expect(second({ a: 1 })).toEqual([]);
    expect(second({ a: 'x' })).toHaveLength(1);
  });

  it('ignores an unknown format without printing anything', () => {
    const spies = (['log', 'warn', 'error', 'info', 'debug'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => undefined),
    );
    const check = createSchemaCompiler()({ type: 'object', properties: { when: { type: 'string', format: 'fiscal-quarter' } } });
    expect(check({ when: 'Q3' })).toEqual([]);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('checks known formats', () => {
    const check = createSchemaCompiler()({ type: 'object', properties: { at: { type: 'string', format: 'date-time' } } });
    expect(check({ at: '2026-01-02T03:04:05Z' })).toEqual([]);
    expect(check({ at: 'yesterday' })).toEqual([{ path: 'at', message: 'must match format "date-time" (got "yesterday")' }]);
  });

  it('picks the dialect from $schema (2020-12 prefixItems)', () => {
    const check = createSchemaCompiler()({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      items: false,
    });
    expect(check(['a', 1])).toEqual([]);
    expect(check(['a', 1, 2])).toHaveLength(1);
  });
});

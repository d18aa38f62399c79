import { describe, expect, it } from 'vitest';
import { createSchemaCompiler } from '../schema-validator.js';
import { DEFAULT_INFERENCE_LIMITS, inferSchema, mergeSchemas } from './infer-schema.js';

const learn = (...samples: unknown[]) => samples.map((sample) => inferSchema(sample)).reduce((a, b) => mergeSchemas(a, b));

/** Schema nodes that say something (`{}`, anything, is where the caps cut). */
function countNodes(schema: unknown): number {
  if (typeof schema !== 'object' || schema === null || Object.keys(schema).length === 0) return 0;
  let count = 1;
  const node = schema as Record<string, unknown>;
  for (const key of ['items', 'additionalProperties']) count += countNodes(node[key]);
  if (Array.isArray(node.anyOf)) for (const variant of node.anyOf) count += countNodes(variant);
  if (typeof node.properties === 'object' && node.properties !== null)
    for (const child of Object.values(node.properties)) count += countNodes(child);
  return count;
}

function depthOf(schema: unknown): number {
  if (typeof schema !== 'object' || schema === null) return 0;
  const node = schema as Record<string, unknown>;
  const children = [
    node.items,
    node.additionalProperties,
    ...(Array.isArray(node.anyOf) ? node.anyOf : []),
    ...Object.values((node.properties ?? {}) as object),
  ];
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe('inferSchema', () => {
  it('types one value: closed objects, integers apart from numbers, arrays by their items', () => {
    expect(inferSchema({ items: [{ name: 'a', price: 1.5, stock: 3 }], next: null, done: false })).toEqual({
      type: 'object',
      properties: {
        done: { type: 'boolean' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, price: { type: 'number' }, stock: { type: 'integer' } },
            required: ['name', 'price', 'stock'],
            additionalProperties: false,
          },
        },
        next: { type: 'null' },
      },
      required: ['done', 'items', 'next'],
      additionalProperties: false,
    });
  });

  it('never keeps a value: no enum, const, example or default, whatever the samples', () => {
    const text = JSON.stringify(learn({ status: 'open', secret: 's3cr3t-value' }, { status: 'open', secret: 's3cr3t-value' }));
    expect(text).not.toContain('open');
    expect(text).not.toContain('s3cr3t');
    expect(text).not.toMatch(/enum|const|example|default/);
  });

  it('merges samples: required = present in all, integer widens to number, other types become a union', () => {
    const schema = learn({ id: 1, name: 'a', tag: 'x' }, { id: 2.5, name: null }, { id: 3, name: 'c', extra: [1] });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        extra: { type: 'array', items: { type: 'integer' } },
        id: { type: 'number' },
        name: { anyOf: [{ type: 'null' }, { type: 'string' }] },
        tag: { type: 'string' },
      },
      required: ['id', 'name'],
      additionalProperties: false,
    });
  });

  it('merges the elements of one array, and an empty array with a later full one', () => {
    expect(inferSchema([{ a: 1 }, { a: 2, b: 'x' }])).toEqual({
      type: 'array',
      items: {
        type: 'object',
        properties: { a: { type: 'integer' }, b: { type: 'string' } },
        required: ['a'],
        additionalProperties: false,
      },
    });
    expect(learn({ list: [] }, { list: ['x'] })).toEqual({
      type: 'object',
      properties: { list: { type: 'array', items: { type: 'string' } } },
      required: ['list'],
      additionalProperties: false,
    });
  });

  it('is the same whatever order the samples come in', () => {
    const samples = [{ a: 1, b: [true] }, { a: 'x' }, [1, 2], null, { a: 2.5, c: { d: 1 } }];
    const forward = JSON.stringify(learn(...samples));
    const backward = JSON.stringify(learn(...[...samples].reverse()));
    expect(backward).toBe(forward);
  });

  it("accepts every sample it learned from (ajv, the bridge's own setup)", () => {
    const samples = [
      { items: [{ name: 'a', n: 1 }], total: 1 },
      { items: [], total: 0, more: 'x' },
      { items: [{ name: 'b', n: 2.5, note: null }], total: 1 },
    ];
    const check = createSchemaCompiler()(learn(...samples));
    for (const sample of samples) expect(check(sample)).toEqual([]);
    expect(check({ items: 'nope', total: 1 }).length).toBeGreaterThan(0);
  });
});

describe('inferSchema caps (hostile results)', () => {
  it('stops at maxDepth: deeper values are anything', () => {
    let value: unknown = 'leaf';
    for (let index = 0; index < 5000; index++) value = { next: value };
    const schema = inferSchema(value);
    expect(depthOf(schema)).toBeLessThanOrEqual(DEFAULT_INFERENCE_LIMITS.maxDepth + 2);
    let deep: unknown = 1;
    for (let index = 0; index < 5000; index++) deep = [deep];
    expect(depthOf(inferSchema(deep))).toBeLessThanOrEqual(DEFAULT_INFERENCE_LIMITS.maxDepth + 2);
  });

  it('turns an object with too many keys (or too long a key) into a record of its merged values', () => {
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, index) => [`user-${index}`, { id: index }]));
    expect(inferSchema(wide)).toEqual({
      type: 'object',
      additionalProperties: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false },
    });
    expect(inferSchema({ ['k'.repeat(10_000)]: 1 })).toEqual({ type: 'object', additionalProperties: { type: 'integer' } });
  });

  it("keeps required right in a record's values: a field is required when every value had it", () => {
    const users = Object.fromEntries(
      Array.from({ length: 100 }, (_, index) => [`u${index}`, index % 2 === 0 ? { id: index, admin: true } : { id: index }]),
    );
    expect(inferSchema(users)).toEqual({
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: { admin: { type: 'boolean' }, id: { type: 'integer' } },
        required: ['id'],
        additionalProperties: false,
      },
    });
  });

  it('turns keys spread over many samples into a record too, so the schema cannot grow without end', () => {
    let schema = inferSchema({ k0: 1 });
    for (let index = 1; index < 500; index++) schema = mergeSchemas(schema, inferSchema({ [`k${index}`]: 1 }));
    expect(schema).toEqual({ type: 'object', additionalProperties: { type: 'integer' } });
  });

  it('keeps at most maxNodes nodes, the shallow ones first', () => {
    const limits = { ...DEFAULT_INFERENCE_LIMITS, maxNodes: 50 };
    const big = Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`p${index}`, { a: { b: { c: index } } }]));
    const schema = inferSchema(big, limits);
    expect(countNodes(schema)).toBeLessThanOrEqual(50);
    expect(Object.keys((schema as { properties: object }).properties)).toHaveLength(60);
    expect(countNodes(inferSchema(big))).toBeLessThanOrEqual(DEFAULT_INFERENCE_LIMITS.maxNodes);
  });

  it('keeps "__proto__" and "constructor" as plain keys, without touching any prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": "x"}') as unknown;
    const schema = inferSchema(value);
    const properties = (schema as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(properties).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(schema))).toEqual(JSON.parse(JSON.stringify(schema)));
    expect(JSON.stringify(schema)).toContain('"__proto__"');
  });

  it('treats a shape it never writes (a hand-edited store) as anything instead of failing', () => {
    expect(mergeSchemas({ $ref: '#/x' }, inferSchema({ a: 1 }))).toEqual({});
    expect(mergeSchemas({}, inferSchema([1]))).toEqual({});
  });

  it('learns a 200,000-element array in bounded size', { timeout: 60_000 }, () => {
    const value = Array.from({ length: 200_000 }, (_, index) =>
      index % 3 === 0 ? { id: index } : index % 3 === 1 ? [index] : `s${index}`,
    );
    const schema = inferSchema(value);
    expect(countNodes(schema)).toBeLessThan(20);
  });
});

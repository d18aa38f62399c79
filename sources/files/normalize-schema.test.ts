import { describe, expect, it } from 'vitest';
import { normalizeToolSchema } from './normalize-schema.js';

describe('normalizeToolSchema', () => {
  it("turns the seed's property flags into standard JSON Schema", () => {
    expect(
      normalizeToolSchema({
        type: 'object',
        properties: {
          id: { type: 'string', required: true },
          note: { type: 'string', optional: true },
          nested: { type: 'object', required: ['a'] },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, note: { type: 'string' }, nested: { type: 'object', required: ['a'] } },
      required: ['id'],
    });
  });

  it('gives a parameters object without type the type object', () => {
    expect(normalizeToolSchema({ properties: { a: { type: 'string' } } })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
  });

  it('leaves nested schemas with properties but no type as written (they accept non-objects too)', () => {
    const schema = {
      type: 'object',
      properties: {
        filter: { properties: { field: { type: 'string' } } },
        list: { type: 'array', items: { properties: { id: { type: 'string', required: true } } } },
      },
    };
    expect(normalizeToolSchema(schema)).toEqual({
      type: 'object',
      properties: {
        filter: { properties: { field: { type: 'string' } } },
        list: { type: 'array', items: { properties: { id: { type: 'string' } }, required: ['id'] } },
      },
    });
  });

  it('leaves a result schema with properties but no type as written', () => {
    expect(normalizeToolSchema({ properties: { ok: { type: 'boolean' } } }, { root: 'returns' })).toEqual({
      properties: { ok: { type: 'boolean' } },
    });
  });

  it('keeps a property named __proto__ as a property (schemas are data), with its required flag', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","required":true},"b":{"type":"number"}}}',
    ) as Record<string, unknown>;
    const normalized = normalizeToolSchema(schema);
    const properties = normalized.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value).toEqual({ type: 'string' });
    expect(normalized.required).toEqual(['__proto__']);
  });
});

import { describe, expect, it } from 'vitest';
import { normalizeToolSchema } from './normalize-schema.js';

describe('normalizeToolSchema', () => {
  it('turns the seed\'s property flags into standard JSON Schema', () => {
    expect(
      normalizeToolSchema({
        type: 'object',
        properties: { id: { type: 'string', required: true }, note: { type: 'string', optional: true }, nested: { type: 'object', required: ['a'] } },
      }),
    ).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, note: { type: 'string' }, nested: { type: 'object', required: ['a'] } },
      required: ['id'],
    });
  });

  it('gives a parameters object without type the type object', () => {
    expect(normalizeToolSchema({ properties: { a: { type: 'string' } } })).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
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
    expect(normalizeToolSchema({ properties: { ok: { type: 'boolean' } } }, { root: 'returns' })).toEqual({ properties: { ok: { type: 'boolean' } } });
  });
});

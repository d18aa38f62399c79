import { afterEach, describe, expect, it, vi } from 'vitest';
import { CompileError } from './errors.js';
import { createJsonSchemaCompiler } from './json-schema.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function compileError(schema: Record<string, unknown>): CompileError {
  try {
    createJsonSchemaCompiler()(schema);
  } catch (error) {
    if (error instanceof CompileError) return error;
    throw error;
  }
  throw new Error('compiled');
}

describe('createJsonSchemaCompiler', () => {
  it('says where a schema breaks the meta-schema, with the allowed values', () => {
    const error = compileError({ type: 'object', properties: { q: { type: 'strin' } } });
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toBe(
      'is not a valid JSON Schema (draft-07): at /properties/q/type must be equal to one of the allowed values ("array", "boolean", "integer", "null", "number", "object", "string")',
    );
  });

  it('names a $ref it cannot resolve and a pattern that is not a regular expression', () => {
    expect(compileError({ type: 'object', properties: { a: { $ref: '#/$defs/nope' } } }).message).toBe(
      "cannot be compiled: can't resolve reference #/$defs/nope from id #",
    );
    expect(compileError({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } }).message).toMatch(
      /^cannot be compiled: Invalid regular expression: \/\(\/u?: Unterminated group/,
    );
  });

  it('reports an unknown format to the caller once, and prints nothing', () => {
    const spies = (['log', 'warn', 'error', 'info', 'debug'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => undefined),
    );
    const heard: string[] = [];
    const validate = createJsonSchemaCompiler()(
      { type: 'object', properties: { when: { type: 'string', format: 'fiscal-quarter' } } },
      (message) => heard.push(message),
    );
    expect(validate({ when: 'Q3' })).toBe(true);
    expect(heard).toEqual(['unknown format "fiscal-quarter" ignored in schema at path "#/properties/when"']);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('keeps a root $id as the base of $refs, and lets two schemas share one', () => {
    const compile = createJsonSchemaCompiler();
    const schema = (type: string) => ({
      $id: 'https://example.test/a.json',
      type: 'object',
      properties: { v: { $ref: 'a.json#/definitions/v' } },
      definitions: { v: { type } },
    });
    const strings = compile(schema('string'));
    const numbers = compile(schema('number'));
    expect([strings({ v: 'x' }), strings({ v: 1 }), numbers({ v: 1 }), numbers({ v: 'x' })]).toEqual([true, false, true, false]);
  });

  it('resolves every reference a valid schema makes: a nested $id back to the root, # under unevaluatedProperties', () => {
    const compile = createJsonSchemaCompiler();
    const nested = compile({
      $id: 'https://example.test/root.json',
      type: 'object',
      properties: {
        child: {
          $id: 'https://example.test/sub/child.json',
          type: 'object',
          properties: { back: { $ref: '../root.json' }, self: { $ref: '#/properties/leaf' }, leaf: { type: 'string' } },
        },
      },
    });
    expect([
      nested({ child: { back: { child: { leaf: 'a' } }, self: 'b' } }),
      nested({ child: { back: { child: { leaf: 1 } } } }),
      nested({ child: { self: 2 } }),
    ]).toEqual([true, false, false]);
    const unevaluated = compile({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { name: { type: 'string' } },
      unevaluatedProperties: { $ref: '#' },
    });
    expect([unevaluated({ name: 'a', extra: { name: 'b' } }), unevaluated({ name: 'a', extra: { name: 1 } })]).toEqual([true, false]);
    // The $ids are the compiled schema's own: the same ones compile again, with other content.
    const again = compile({ $id: 'https://example.test/root.json', type: 'string' });
    expect([again('x'), again(1)]).toEqual([true, false]);
  });

  it('validates a property named __proto__ as the property it is (ajv alone reads the prototype)', () => {
    const compile = createJsonSchemaCompiler();
    const validate = compile(
      JSON.parse(
        '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"],"additionalProperties":false}',
      ) as Record<string, unknown>,
    );
    expect(validate(JSON.parse('{"__proto__":"x"}'))).toBe(true);
    expect(validate(JSON.parse('{"__proto__":5}'))).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe('/__proto__');
    expect(validate({})).toBe(false);
    expect(validate.errors?.[0]?.params).toEqual({ missingProperty: '__proto__' });
  });

  it('follows $schema to 2020-12 and 2019-09, and reads draft-04 as draft-07', () => {
    const compile = createJsonSchemaCompiler();
    const tuple = compile({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }],
      items: false,
    });
    expect([tuple(['a']), tuple(['a', 'b'])]).toEqual([true, false]);
    const dependent = compile({ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', dependentRequired: { a: ['b'] } });
    expect([dependent({ a: 1, b: 2 }), dependent({ a: 1 })]).toEqual([true, false]);
    expect(compile({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' })('x')).toBe(true);
  });
});

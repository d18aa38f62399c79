import { describe, expect, it } from 'vitest';
import type { FunctionSpec } from '../core/index.js';
import { formatSignature } from './signature.js';

function fn(
  inputSchema: FunctionSpec['inputSchema'],
  outputSchema?: FunctionSpec['outputSchema'],
  resultKind: FunctionSpec['resultKind'] = 'value',
): FunctionSpec {
  return { name: 'f', toolName: 'f', inputSchema, ...(outputSchema ? { outputSchema } : {}), resultKind };
}

describe('formatSignature', () => {
  it.each([
    [fn({ type: 'object', properties: {} }), 'f(params?: {}): Promise<unknown>'],
    [fn({ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }), 'f(params: { a: number }): Promise<unknown>'],
    [
      fn({ type: 'object', properties: { 'x-y': { type: ['string', 'null'] } } }),
      'f(params?: { "x-y"?: string | null }): Promise<unknown>',
    ],
    [fn({ type: 'object', properties: {} }, undefined, 'mcp-text'), 'f(params?: {}): Promise<string>'],
    [fn({ type: 'object', properties: {} }, { type: 'array', items: { enum: ['a', 'b'] } }), 'f(params?: {}): Promise<("a" | "b")[]>'],
    [
      fn({ type: 'object', properties: {} }, { type: 'array', items: { type: 'object', properties: { p: { enum: ['x', 'y'] } } } }),
      'f(params?: {}): Promise<{ p?: "x" | "y" }[]>',
    ],
    // `$ref`s are written by the names the declarations give them (index.d.ts declares Point).
    [
      fn({
        type: 'object',
        properties: { a: { $ref: '#/$defs/Point' } },
        $defs: { Point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      }),
      'f(params?: { a?: Point }): Promise<unknown>',
    ],
    [
      fn(
        { type: 'object', properties: { a: { $ref: '#/$defs/Missing' }, b: { $ref: 'http://example.com/x.json' } } },
        { $ref: '#/definitions/Nope' },
      ),
      'f(params?: { a?: unknown; b?: unknown }): Promise<unknown>',
    ],
    [
      fn({ type: 'object', properties: {} }, { type: 'object', properties: { next: { $ref: '#' } } }),
      'f(params?: {}): Promise<{ next?: { next?: { … } } }>',
    ],
    [fn({ type: 'object', properties: {} }, { $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/A' } } }), 'f(params?: {}): Promise<A>'],
    // allOf is every part (a $ref wrapped to carry a description is that type); a null-only result is void.
    [
      fn(
        {
          type: 'object',
          properties: { body: { allOf: [{ $ref: '#/$defs/NewPet' }], description: 'the pet' } },
          required: ['body'],
          $defs: { NewPet: { type: 'object', properties: { name: { type: 'string' } } } },
        },
        { allOf: [{ type: 'object', properties: { id: { type: 'number' } } }, { anyOf: [{ type: 'string' }, { type: 'number' }] }] },
      ),
      'f(params: { body: NewPet }): Promise<{ id?: number } & (string | number)>',
    ],
    [
      fn({ type: 'object', properties: {} }, { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'null' }),
      'f(params?: {}): Promise<void>',
    ],
    // A branch no value matches adds nothing to a union.
    [
      fn({ type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { not: {} }] }, w: { oneOf: [false, { not: true }] } } }),
      'f(params?: { v?: string; w?: never }): Promise<unknown>',
    ],
    // Refs through the root's $id are refs into the same schema.
    [
      fn({
        $id: 'https://example.test/p.json',
        type: 'object',
        properties: { a: { $ref: 'p.json#/$defs/P' } },
        $defs: { P: { type: 'string' } },
      }),
      'f(params?: { a?: P }): Promise<unknown>',
    ],
  ])('%#: %s', (spec, expected) => {
    expect(formatSignature(spec)).toBe(expected);
  });

  it("names a $ref target as its module's declarations do (a name two functions want differently is prefixed)", () => {
    const point = (x: string) => ({
      type: 'object',
      properties: { p: { $ref: '#/$defs/Point' } },
      $defs: { Point: { type: 'object', properties: { [x]: { type: 'number' } } } },
    });
    const a: FunctionSpec = { name: 'a', toolName: 'a', inputSchema: point('x'), resultKind: 'value' };
    const b: FunctionSpec = { name: 'b', toolName: 'b', inputSchema: point('y'), resultKind: 'value' };
    const capability = { module: 'm', namespace: 'm', source: { kind: 'std' as const }, config: {}, functions: [a, b] };
    expect(formatSignature(a, capability)).toBe('a(params?: { p?: AParamsPoint }): Promise<unknown>');
    expect(formatSignature(b, capability)).toBe('b(params?: { p?: BParamsPoint }): Promise<unknown>');
    // Alone, a function's names are its own.
    expect(formatSignature(b)).toBe('b(params?: { p?: Point }): Promise<unknown>');
  });
});

import { describe, expect, it } from 'vitest';
import type { FunctionSpec } from '../core/index.js';
import { formatSignature } from './signature.js';

function fn(inputSchema: FunctionSpec['inputSchema'], outputSchema?: FunctionSpec['outputSchema'], resultKind: FunctionSpec['resultKind'] = 'value'): FunctionSpec {
  return { name: 'f', toolName: 'f', inputSchema, ...(outputSchema ? { outputSchema } : {}), resultKind };
}

describe('formatSignature', () => {
  it.each([
    [fn({ type: 'object', properties: {} }), 'f(params?: {}): Promise<unknown>'],
    [fn({ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }), 'f(params: { a: number }): Promise<unknown>'],
    [fn({ type: 'object', properties: { 'x-y': { type: ['string', 'null'] } } }), 'f(params?: { "x-y"?: string | null }): Promise<unknown>'],
    [fn({ type: 'object', properties: {} }, undefined, 'mcp-text'), 'f(params?: {}): Promise<string>'],
    [fn({ type: 'object', properties: {} }, { type: 'array', items: { enum: ['a', 'b'] } }), 'f(params?: {}): Promise<("a" | "b")[]>'],
    [fn({ type: 'object', properties: {} }, { type: 'array', items: { type: 'object', properties: { p: { enum: ['x', 'y'] } } } }), 'f(params?: {}): Promise<{ p?: "x" | "y" }[]>'],
    // `$ref`s show what they point to: the last segment of a pointer is no type the model can use.
    [
      fn({ type: 'object', properties: { a: { $ref: '#/$defs/Point' } }, $defs: { Point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } } }),
      'f(params?: { a?: { x: number } }): Promise<unknown>',
    ],
    [fn({ type: 'object', properties: { a: { $ref: '#/$defs/Missing' }, b: { $ref: 'http://example.com/x.json' } } }, { $ref: '#/definitions/Nope' }), 'f(params?: { a?: unknown; b?: unknown }): Promise<unknown>'],
    [fn({ type: 'object', properties: {} }, { type: 'object', properties: { next: { $ref: '#' } } }), 'f(params?: {}): Promise<{ next?: { next?: { … } } }>'],
    [fn({ type: 'object', properties: {} }, { $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/A' } } }), 'f(params?: {}): Promise<unknown>'],
    // A branch no value matches adds nothing to a union.
    [fn({ type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { not: {} }] }, w: { oneOf: [false, { not: true }] } } }), 'f(params?: { v?: string; w?: never }): Promise<unknown>'],
    // Refs through the root's $id are refs into the same schema.
    [
      fn({ $id: 'https://example.test/p.json', type: 'object', properties: { a: { $ref: 'p.json#/$defs/P' } }, $defs: { P: { type: 'string' } } }),
      'f(params?: { a?: string }): Promise<unknown>',
    ],
  ])('%#: %s', (spec, expected) => {
    expect(formatSignature(spec)).toBe(expected);
  });
});

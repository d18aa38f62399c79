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
  ])('%#: %s', (spec, expected) => {
    expect(formatSignature(spec)).toBe(expected);
  });
});

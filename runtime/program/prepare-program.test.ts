import { describe, expect, it } from 'vitest';
import { prepareProgram, WRAPPER_PREFIX } from './prepare-program.js';

function prepared(code: string) {
  const result = prepareProgram(code);
  if (!result.ok) throw new Error(result.error.message);
  return result;
}

describe('prepareProgram', () => {
  it('wraps a snippet after its imports, keeping lines', () => {
    const result = prepared("import { add } from '@capabilities/math';\nconst a = await add({ a: 1, b: 2 });\nreturn a;");
    expect(result.kind).toBe('snippet');
    expect(result.imports).toEqual(['@capabilities/math']);
    expect(result.source).toBe(
      `import { add } from '@capabilities/math';${WRAPPER_PREFIX}\nconst a = await add({ a: 1, b: 2 });\nreturn a;\n return __asDefault;\n};\n`,
    );
  });
  it('turns export default into an assignment of the same length', () => {
    const result = prepared('const x = 1;\nexport default { x };');
    expect(result.kind).toBe('module');
    expect(result.source.split('\n')[1]).toBe('__asDefault =  { x };');
  });
  it('keeps a named default function hoisted and returns it', () => {
    const result = prepared('export default async function main() { return 1; }');
    expect(result.source).toBe(
      `${WRAPPER_PREFIX}               async function main() { return 1; }\n__asDefault = main; return __asDefault;\n};\n`,
    );
  });
  it('handles export lists naming the default and plain exports', () => {
    const result = prepared('export const a = 1;\nconst b = 2;\nexport { b as default };');
    expect(result.source).toContain('       const a = 1;');
    expect(result.source).toContain('__asDefault = b;');
  });
  it('maps positions on the wrapper line back, and leaves other lines alone', () => {
    const result = prepared('const a = 1; throw new Error();');
    expect(result.toOriginal({ line: 1, column: WRAPPER_PREFIX.length + 14 })).toEqual({ line: 1, column: 14 });
    expect(result.toOriginal({ line: 2, column: 5 })).toEqual({ line: 1, column: 1 });
  });
  it.each([
    ["import fs from 'fs';", 'import of "fs" refused'],
    ["const x = 1;\nimport { add } from '@capabilities/math';", 'imports must come before'],
    ["export * from '@capabilities/math';", 're-exports'],
    ['export default 1;\nreturn 2;', 'not both'],
    ["const m = await import('@capabilities/math');", 'dynamic import() of "@capabilities/math" refused'],
    ["import fs = require('fs');", 'import x = require'],
    ['namespace Tools { export const x = 1; }', 'namespaces are not supported'],
  ])('refuses %s', (code, message) => {
    const result = prepareProgram(code);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain(message);
  });
  it('allows type-only imports of anything (they vanish before running)', () => {
    expect(prepareProgram("import type { Stats } from 'fs';\nreturn 1;").ok).toBe(true);
  });
  it('lets types stand anywhere: a type-only import moves after the wrapper, exported types lose their export', () => {
    const result = prepared(
      "type Id = string;\nimport { add } from '@capabilities/math';\nconst n = 1;\nimport type { Order } from '@capabilities/orders';\nexport interface A { id: Id }\nexport type { A as B };\nreturn add;",
    );
    expect(result.kind).toBe('snippet');
    expect(result.imports).toEqual(['@capabilities/math']);
    const lines = result.source.split('\n');
    expect(lines[3]?.trim()).toBe('');
    expect(lines[4]).toBe('       interface A { id: Id }');
    expect(lines[5]?.trim()).toBe('');
    expect(lines.at(-2)).toBe("import type { Order } from '@capabilities/orders';");
  });
});

import { describe, expect, it } from 'vitest';
import { compileProgram, type CompiledProgram } from './compile-program.js';
import { WRAPPER_PREFIX } from './program-shape.js';

function compiled(code: string): CompiledProgram {
  const result = compileProgram(code);
  if (!result.ok) throw new Error(result.error.message);
  return result;
}

function refused(code: string): string {
  const result = compileProgram(code);
  if (result.ok) throw new Error(`compiled: ${result.js}`);
  return result.error.message;
}

describe('compileProgram', () => {
  it('wraps a snippet after its imports, keeping lines and dropping types', () => {
    const result = compiled("import { add } from '@capabilities/math';\nconst a: number = await add({ a: 1, b: 2 });\nreturn a;");
    expect(result.kind).toBe('snippet');
    expect(result.imports).toEqual(['@capabilities/math']);
    expect(result.js).toBe(
      `import { add } from '@capabilities/math';${WRAPPER_PREFIX}\nconst a = await add({ a: 1, b: 2 });\nreturn a;\n return __asDefault;\n};\n`,
    );
  });
  it('turns export default into an assignment of the same length', () => {
    const result = compiled('const x = 1;\nexport default { x };');
    expect(result.kind).toBe('module');
    expect(result.js.split('\n')[1]).toBe('__asDefault =  { x };');
  });
  it('keeps a named default function hoisted and returns it', () => {
    expect(compiled('export default async function main(): Promise<number> { return 1; }').js).toBe(
      `${WRAPPER_PREFIX}               async function main() { return 1; }\n__asDefault = main; return __asDefault;\n};\n`,
    );
  });
  it('handles export lists naming the default, plain exports, parenthesized defaults and anonymous classes', () => {
    const lists = compiled('export const a = 1;\nconst b = 2;\nexport { b as default };').js;
    expect(lists).toContain('       const a = 1;');
    expect(lists).toContain('__asDefault = b;');
    expect(compiled('export default (1 + 1);').js).toContain('__asDefault =  (1 + 1);');
    expect(compiled('export default class { x = 1 }').js).toContain('__asDefault =  class { x = 1 }');
  });
  it('drops imported names used only as types, as TypeScript does (capability modules export no types)', () => {
    const result = compiled(
      "import crm, { type Customer, Order, add } from '@capabilities/crm';\nimport { Shape } from '@capabilities/shapes';\nconst c: Customer = await crm.get();\nconst o: Order | Shape = c;\nreturn add(o);",
    );
    expect(result.js.split('\n')[0]?.trimEnd()).toBe("import crm, { add } from '@capabilities/crm';");
    expect(result.js.split('\n')[1]?.trim()).toBe(WRAPPER_PREFIX);
    expect(result.imports).toEqual(['@capabilities/crm', '@capabilities/shapes']);
  });
  it('keeps imported names used as values anywhere (shorthand, export lists, nested functions)', () => {
    const result = compiled(
      "import { a, b, c } from '@capabilities/m';\nconst o = { a };\nfunction f() { return b(); }\nexport { c as default };",
    );
    expect(result.js.split('\n')[0]).toBe(`import { a, b, c } from '@capabilities/m';${WRAPPER_PREFIX}`);
  });
  it('does not count property names as uses', () => {
    expect(compiled("import { add } from '@capabilities/m';\nconst o = { add: 1 };\nreturn o.add;").js.split('\n')[0]?.trim()).toBe(
      WRAPPER_PREFIX,
    );
  });
  it('compiles enums, parameter properties, satisfies, assertions and overloads', () => {
    const code =
      'enum Color { Red, Green }\nclass P { constructor(private readonly x: number) {} get(): number { return this.x; } }\nconst o = { c: Color.Green } satisfies object;\nfunction f(a: string): string;\nfunction f(a: unknown) { return a as string; }\nreturn [o.c, new P(2).get(), f(<string>"s")!];';
    const result = compiled(code);
    // The program's lines, then the wrapper's end.
    expect(result.js.split('\n')).toHaveLength(code.split('\n').length + 3);
    expect(result.js.split('\n')[5]).toBe('return [o.c, new P(2).get(), f("s")];');
    expect(result.js).toContain('this.x = x');
  });
  it('maps positions back to the TypeScript, columns included', () => {
    const result = compiled(
      "interface Order { id: string }\n\nconst order: Order = { id: 'o1' };\n\nif (order.id) {\n  throw new TypeError('bad order ' + order.id);\n}",
    );
    const lines = result.js.split('\n');
    const throwLine = lines.findIndex((line) => line.includes('throw new TypeError')) + 1;
    expect(throwLine).toBe(6);
    const column = (lines[5] ?? '').indexOf('new TypeError') + 1;
    expect(result.toSource({ line: 6, column })).toEqual({ line: 6, column: 9 });
    const typed = compiled("const a: number = 1; const b: string = 'x'; throw new Error(b);");
    const errorColumn = typed.js.indexOf('new Error') + 1;
    expect(typed.toSource({ line: 1, column: errorColumn })).toEqual({ line: 1, column: 51 });
  });
  it.each([
    ['const a = 1;\nconst b = ;\nreturn a;', 2, 'Unexpected token ";"'],
    ['const a: number = 1;\nlet let = 2;', 2, undefined],
    ["const s: string = 'x';\nif (s) {\n  return s;\n", 4, undefined],
    ['const a = 1;\n\nconst a = 2;', 3, 'already been declared'],
  ])('reports the syntax error of %j at its TypeScript line', (code, line, message) => {
    const result = compileProgram(code);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ name: 'SyntaxError', code: 'SYNTAX_ERROR', line });
    expect(result.error.message).toContain(`(line ${line})`);
    if (message !== undefined) expect(result.error.message).toContain(message);
  });
  it.each([
    ["import fs from 'fs';", 'import of "fs" refused'],
    ["import { type Stats } from 'fs';", 'import of "fs" refused'],
    ["const x = 1;\nimport { add } from '@capabilities/math';", 'imports must come before'],
    ["export * from '@capabilities/math';", 're-exports'],
    ["export { add } from '@capabilities/math';", 're-exports'],
    ['export default 1;\nreturn 2;', 'not both'],
    ["const m = await import('@capabilities/math');", 'dynamic import() of "@capabilities/math" refused'],
    ['function f(name: string) { return import(name); }', 'dynamic import() of a computed specifier refused'],
    ["import fs = require('fs');", 'import x = require'],
    ['const x = 1;\nexport = x;', '`export =` is not supported'],
    ['namespace Tools { export const x = 1; }\nreturn Tools.x;', 'namespaces are not supported'],
    ['const a = 1;\nexport namespace A.B { export const x = 1; }', 'namespaces are not supported'],
  ])('refuses %j', (code, message) => {
    expect(refused(code)).toContain(message);
  });
  it('tells refusals from look-alikes: namespaces in strings and comments, require and module.exports written as such', () => {
    expect(compiled('// namespace A {\nconst s = `\nnamespace B {`;\nreturn s;').kind).toBe('snippet');
    expect(compiled("const fs = require('fs');\nmodule.exports = fs;").kind).toBe('module');
  });
  it('allows type-only imports of anything and types before the imports (they vanish before running)', () => {
    const result = compiled(
      "import type { Stats } from 'fs';\ntype Id = string;\ninterface A { id: Id }\nimport { add } from '@capabilities/math';\nexport type { A };\nreturn add;",
    );
    expect(result.imports).toEqual(['@capabilities/math']);
    expect(result.js.split('\n')[3]).toBe(`import { add } from '@capabilities/math';${WRAPPER_PREFIX}`);
  });
});

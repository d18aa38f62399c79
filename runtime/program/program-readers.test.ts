// The two readers of programs — the TypeScript-based one of the type checker (prepareProgram) and the
// light one of runs (compileProgram) — must agree on every program: the same kind, imports, refusals
// (message and position) and, for programs that run without capabilities, the same result.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { compileProgram } from './compile-program.js';
import { prepareProgram } from './prepare-program.js';

const CORPUS: string[] = [
  // snippets and modules
  'return 1 + 1;',
  'const a: number = 2;\nif (a > 1) {\n  return a * 3;\n}\nreturn 0;',
  'const x = 1;\nexport default { x };',
  'export default async function main(): Promise<number> { return 41 + 1; }',
  'export default function () { return 7; }',
  'export default class Box { value = 3 }',
  'export const a = 1;\nconst b = 2;\nexport { b as default };',
  'const b = { n: 5 };\nexport { b as default, b as other };',
  'export default (1 + 2);',
  'export let counter = 0;\ncounter++;\nexport function bump() { return ++counter; }',
  'for (const n of [1, 2, 3]) {\n  if (n === 2) return n;\n}',
  'function inner() { return 5; }\nclass K { m() { return 6; } }\nexport default inner() + new K().m();',
  'const f = () => { return 1; };\nconst g = async () => 2;\nexport default [f(), await g()];',
  'label: for (;;) { break label; }\nreturn "after";',
  'try {\n  throw new Error("x");\n} catch {\n  return "caught";\n} finally {\n  void 0;\n}',
  'switch (2 as number) {\n  case 2: return "two";\n  default: return "other";\n}',
  'console.log("no result");',
  '',
  '// only a comment',
  ';;\nreturn 1;',
  // TypeScript-only syntax
  'interface A { a: number }\ntype B = A & { b: string };\nconst v: B = { a: 1, b: "x" };\nreturn v;',
  'enum Color { Red, Green = "g" }\nreturn [Color.Red, Color.Green];',
  'const enum Size { S = 1 }\nreturn Size.S;',
  'class P { constructor(private readonly x: number, public y = 2) {} sum(): number { return this.x + this.y; } }\nreturn new P(1).sum();',
  'abstract class Shape { abstract area(): number; describe() { return `area ${this.area()}`; } }\nclass Sq extends Shape { area() { return 4; } }\nexport default new Sq().describe();',
  'function id<T>(value: T): T { return value; }\nconst n = id<number>(3);\nconst s = <string>"s";\nreturn [n, s, n!, (s as unknown as string)];',
  'function over(a: string): string;\nfunction over(a: number): number;\nfunction over(a: unknown) { return a; }\nreturn over(1);',
  'declare const injected: number;\ndeclare global { interface Window { x: 1 } }\nreturn typeof injected;',
  'const o = { a: 1 } satisfies Record<string, number>;\nlet late!: number;\nlate = o.a;\nreturn late;',
  'type T = string;\nexport type { T };\nexport default 1 as T | number;',
  'interface Only {}\nexport default interface Fancy { x: 1 }\nreturn 2;',
  // imports
  "import { add } from '@capabilities/math';\nconst a = await add({ a: 1, b: 2 });\nreturn a;",
  "import crm, { type Customer } from '@capabilities/crm';\nconst c: Customer = await crm.getCustomer({ id: 'x' });\nexport default c;",
  "import * as math from '@capabilities/math';\nimport { Unused } from '@capabilities/other';\nexport default await math.add({ a: 1, b: 1 });",
  "import type { Stats } from 'fs';\nimport type { Order } from '@capabilities/orders';\nreturn 1;",
  "import { add } from '@capabilities/math'; const s: string = String(await add({ a: 1, b: 2 }));\nreturn s;",
  "type Id = string;\nimport { add } from '@capabilities/math';\nreturn add;",
  "import '@capabilities/side-effect';\nreturn 1;",
  "import { a } from '@capabilities/one';\nimport { a as b } from '@capabilities/two';\nreturn [a, b];",
  "const n = 1;\nimport type { X } from '@capabilities/late';\nreturn n;",
  // look-alikes that are not what they look like
  'const text = \'import fs from "fs"\';\nreturn text;',
  'const s = `\nnamespace Fake {`;\n// module Other {\nreturn s.length;',
  "const req = { require: (name: string) => name };\nreturn req.require('fs');",
  // refusals
  "import fs from 'fs';",
  "import { readFile } from 'node:fs/promises';\nreturn readFile;",
  "import x from './local.js';",
  "import { type Stats } from 'fs';",
  "const x = 1;\nimport { add } from '@capabilities/math';",
  "export * from '@capabilities/math';",
  "export { add } from '@capabilities/math';",
  "export * as m from '@capabilities/math';",
  'export default 1;\nreturn 2;',
  'export const a = 1;\nif (a) {\n  return a;\n}',
  "const m = await import('@capabilities/math');",
  'const name = "fs";\nconst m = await import(name);',
  "function later() { return import('@capabilities/x'); }\nexport default later;",
  "import fs = require('fs');",
  "const a = 1;\nimport path = require('path');",
  'const x = 1;\nexport = x;',
  'namespace Tools { export const x = 1; }\nreturn Tools.x;',
  'const a = 1;\nexport namespace A.B { export const x = 1; }',
  'module Legacy { }\nreturn 1;',
];

/** The result of a program that imports nothing, run as the isolate would run it (as a function here). */
async function runWithoutCapabilities(js: string): Promise<unknown> {
  const body = js.replace(/;\s*export default async \(\) =>/, ';return async () =>');
  const main = new Function(`"use strict";${body}`)() as () => Promise<unknown>;
  const value = await main();
  if (typeof value === 'function') return `function ${value.name}`;
  return JSON.parse(JSON.stringify(value ?? null)) as unknown;
}

describe('the two readers of programs agree', () => {
  it.each(CORPUS.map((code) => [code]))('on %j', async (code) => {
    const prepared = prepareProgram(code);
    const compiled = compileProgram(code);
    if (!prepared.ok) {
      expect(compiled).toEqual({ ok: false, error: prepared.error });
      return;
    }
    if (!compiled.ok) throw new Error(`only the light reader refused: ${compiled.error.message}`);
    expect({ kind: compiled.kind, imports: compiled.imports }).toEqual({ kind: prepared.kind, imports: prepared.imports });
    if (compiled.imports.length > 0 || /\bimport\b/.test(compiled.js.split(';export default')[0] ?? '')) return;
    const transpiled = ts.transpileModule(prepared.source, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    }).outputText;
    expect(await runWithoutCapabilities(compiled.js)).toEqual(await runWithoutCapabilities(transpiled));
  });

  it.each([
    ['const a = 1;\nconst b = ;\nreturn a;'],
    ['const s: string = "x";\nif (s) {\n  return s;\n'],
    ['const o = { a: 1, };\nconst p = o.;\n'],
    ['function f(a: number {\n  return a;\n}'],
    ['const t: Array<number = [];'],
  ])('on the line of a syntax error in %j', (code) => {
    const compiled = compileProgram(code);
    expect(compiled.ok).toBe(false);
    if (compiled.ok) return;
    const [first] = ts.transpileModule(code, { reportDiagnostics: true }).diagnostics ?? [];
    const file = ts.createSourceFile('program.ts', code, ts.ScriptTarget.ES2022);
    expect(compiled.error).toMatchObject({ code: 'SYNTAX_ERROR', line: file.getLineAndCharacterOfPosition(first?.start ?? 0).line + 1 });
  });
});

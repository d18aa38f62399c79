// The native checker (TypeScript 7's tsc) answers as the TypeScript 5 checker does: the same
// diagnostics (line and column in the model's program, code, message) for the same programs, against
// the same build; a syntax error goes to TypeScript 5 (tsc reports no type errors beside one).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ts } from 'ts-morph';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_OUT_DIR } from '../sandbox.contract.js';
import { createTypeChecker, TYPE_CHECK_STOPPED, useNativeTypeChecker } from '../type-check.js';
import { createProgramChecker } from './language-service.js';
import { combinedLib, createNativeProgramChecker, namesOtherFiles } from './native-check.js';
import { findNativeTsc } from './native-tsc.js';

const tsc = findNativeTsc();
const root = mkdtempSync(path.join(os.tmpdir(), 'native-check-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
if (!tsc.ok) throw new Error(`the native compiler must be installed for these tests: ${tsc.reason}`);

const PROGRAMS: Record<string, string> = {
  ok: "import { add } from '@capabilities/math';\nimport crm from '@capabilities/crm';\nconst c = await crm.getCustomer({ id: 'x' });\nconsole.log(c.email);\nreturn await add({ a: 1, b: 2 });",
  module: 'export default 1 + 1;\n',
  typeError: "import { add } from '@capabilities/math'; const s: string = await add({ a: 1, b: 2 });\nreturn s;",
  wrongArgument: "import { add } from '@capabilities/math';\n\nawait add({ a: '1', b: 2 });",
  unknownCapability: "import { x } from '@capabilities/nope';\nreturn x;",
  unknownFunction: "import { subtract } from '@capabilities/math';\nreturn subtract;",
  unlistedPackage: "import _ from 'lodash';\nreturn _;",
  refusedImport: "import fs from 'node:fs';\nconst n: number = 'x';\nreturn fs.readFileSync('/etc/passwd');",
  globals: 'document.title = "x";\nprocess.exit(1);\nawait fetch("https://example.com");\nconst b = new SharedArrayBuffer(8);',
  nonAscii: "const grüße = 'héllo 🌍'; const n: number = grüße;\nreturn n;",
  chained: 'const o: { a: { b: number } } = { a: { b: "x" } };\nconst f: (x: string) => number = (x: number) => x;\nreturn [o, f];',
  strictness: 'const list = [1, 2, 3];\nconst first: number = list[0];\nfunction g(x) { return x; }\nreturn [first, g];',
  es2022:
    "const a = [1, 2].at(-1);\nconst o = Object.hasOwn({}, 'x');\nconst s = 'abc'.replaceAll('b', 'c');\nreturn [a, o, s, structuredClone({})];",
  severalErrors: 'const a: number = "1";\nconst b: string = 2;\nlet c: boolean = a;\nreturn [a, b, c, d];',
};

describe('the native checker against TypeScript 5, program by program', { timeout: 120_000 }, () => {
  const ts5 = createProgramChecker({ outDir: FIXTURE_OUT_DIR });
  ts5.refreshDeclarations();
  const native = createNativeProgramChecker({ outDir: FIXTURE_OUT_DIR, tsc });

  for (const [name, code] of Object.entries(PROGRAMS)) {
    it(`${name}: the same diagnostics`, async () => {
      const expected = ts5.check(code);
      // A package the build does not list is a file on disk to tsc: TypeScript 5 checks such a program.
      if (name === 'unlistedPackage') {
        expect(await native.check(code, 30_000)).toBeUndefined();
        expect(expected.length).toBeGreaterThan(0);
        return;
      }
      const actual = await native.check(code, 30_000);
      expect(actual).toEqual(expected);
      if (name === 'ok' || name === 'module' || name === 'es2022') expect(actual).toEqual([]);
      else expect(actual?.length).toBeGreaterThan(0);
    });
  }

  it('one known difference: TypeScript 7 reports a missing property of an argument without the outer "Argument of type" line', async () => {
    const code = "import { add } from '@capabilities/math';\nawait add({ a: 1 });";
    const missing = "Property 'b' is missing in type '{ a: number; }' but required in type '{ a: number; b: number; }'.";
    expect(ts5.check(code)).toEqual([
      {
        line: 2,
        column: 11,
        code: 2345,
        message: `Argument of type '{ a: number; }' is not assignable to parameter of type '{ a: number; b: number; }'.\n  ${missing}`,
      },
    ]);
    expect(await native.check(code, 30_000)).toEqual([{ line: 2, column: 11, code: 2741, message: missing }]);
  });

  it('a syntax error is left to TypeScript 5, which reports the type errors beside it too', async () => {
    const code = 'const a: number = "x";\nconst b = ;\nreturn a;';
    expect(await native.check(code, 30_000)).toBeUndefined();
    expect(ts5.check(code).map((diagnostic) => diagnostic.code)).toEqual([2322, 1109]);
  });

  it('leaves every program that names another file to TypeScript 5, so no message quotes a file of the host', async () => {
    const secret = path.join(root, 'secret.ts');
    writeFileSync(secret, "export const API_KEY = 'sk-do-not-print';\n");
    const programs = [
      `const n: number = null! as typeof import(${JSON.stringify(secret)}).API_KEY;\nreturn n;`,
      `/// <reference path=${JSON.stringify(secret)} />\nconst n: number = API_KEY;\nreturn n;`,
      `import type { API_KEY } from ${JSON.stringify(secret)};\nreturn 1;`,
      "import type { x } from 'zod/../../../../etc/passwd';\nreturn 1;",
      "import x = require('./secret');\nreturn x;",
      "const m = await import('./secret');\nreturn m;",
      "export * from '../secret';",
    ];
    for (const code of programs) {
      // Left to TypeScript 5 (undefined), or checked without the file (a reference not at the top is no directive).
      expect(JSON.stringify((await native.check(code, 30_000)) ?? null), code).not.toContain('sk-do-not-print');
      expect(JSON.stringify(ts5.check(code)), code).not.toContain('sk-do-not-print');
    }
    expect(await native.check(programs[0] as string, 30_000)).toBeUndefined();
    const file = (code: string) => ts.createSourceFile('program.ts', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
    const listed = new Set(['zod', '@scope/pkg']);
    expect(
      namesOtherFiles(file("import { add } from '@capabilities/math';\nimport { z } from 'zod';\nimport p from '@scope/pkg/sub';"), listed),
    ).toBe(false);
    for (const specifier of ['@capabilities/math/../../x', '@capabilities/', 'zod/./x', 'zod//x', 'lodash', '/abs', './rel'])
      expect(namesOtherFiles(file(`import x from ${JSON.stringify(specifier)};`), listed), specifier).toBe(true);
  });

  it('stops the compiler past its memory limit, and tells its process id while it runs', async () => {
    const pids: (number | undefined)[] = [];
    const limited = createNativeProgramChecker({ outDir: FIXTURE_OUT_DIR, tsc, memoryLimitMb: 64, onCompiler: (pid) => pids.push(pid) });
    const explode = `type Explode<T, N extends unknown[] = []> = N['length'] extends 24 ? T : Explode<[T, T], [...N, 0]> | Explode<{ a: T }, [...N, 0]>;
declare const x: Explode<string>;
const y: number = x;
return y;`;
    expect(await limited.check(explode, 60_000)).toEqual([
      expect.objectContaining({ code: TYPE_CHECK_STOPPED, message: expect.stringContaining('used more than 64 MB') }),
    ]);
    expect(pids).toEqual([expect.any(Number), undefined]);
    expect(() => process.kill(pids[0] as number, 0)).toThrow();
  });

  it('the lib is ES2022 without shared memory, one file', () => {
    const lib = combinedLib(tsc.libDir);
    expect(lib).toContain('interface Array<T>');
    expect(lib).toContain('hasOwn(');
    expect(lib).not.toContain('interface SharedArrayBuffer {');
    expect(lib).not.toMatch(/<reference +lib=/);
  });
});

describe('createTypeChecker after useNativeTypeChecker', { timeout: 120_000 }, () => {
  it('checks through the native check worker, a syntax error included, and stops at the time limit', async () => {
    expect(await useNativeTypeChecker()).toMatchObject({ native: true });
    const checker = createTypeChecker({ outDir: FIXTURE_OUT_DIR });
    expect(await checker.check(PROGRAMS['wrongArgument'] as string)).toEqual([expect.objectContaining({ line: 3, code: 2322 })]);
    const syntax = await checker.check('const a: number = "x";\nconst b = ;\nreturn a;');
    expect(syntax.map((diagnostic) => [diagnostic.line, diagnostic.code])).toEqual([
      [1, 2322],
      [2, 1109],
    ]);
    const explode = `type Explode<T, N extends unknown[] = []> = N['length'] extends 24 ? T : Explode<[T, T], [...N, 0]> | Explode<{ a: T }, [...N, 0]>;
declare const x: Explode<string>;
const y: number = x;
return y;`;
    const stopped = await checker.check(explode, { timeoutMs: 1500 });
    expect(stopped).toEqual([expect.objectContaining({ code: TYPE_CHECK_STOPPED, message: expect.stringContaining('longer than 1.5 s') })]);
  });
});

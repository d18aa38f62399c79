import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_OUT_DIR } from './sandbox.contract.js';
import { createTypeChecker, TYPE_CHECK_STOPPED } from './type-check.js';
import { createProgramChecker } from './type-check/language-service.js';

/** Doubles the number of distinct types at each of 24 levels: TypeScript works on it for minutes, and its memory grows. */
const PATHOLOGICAL = `type Explode<T, N extends unknown[] = []> = N['length'] extends 24 ? T : Explode<[T, T], [...N, 0]> | Explode<{ a: T }, [...N, 0]>;
declare const x: Explode<string>;
const y: number = x;
return y;`;

describe('createTypeChecker', () => {
  const checker = createTypeChecker({ outDir: FIXTURE_OUT_DIR });

  it('accepts a program that uses capabilities correctly', async () => {
    expect(
      await checker.check(
        "import { add } from '@capabilities/math';\nimport crm from '@capabilities/crm';\nconst c = await crm.getCustomer({ id: 'x' });\nconsole.log(c.email);\nreturn await add({ a: 1, b: 2 });",
      ),
    ).toEqual([]);
  });
  it("reports errors in the program's own lines and columns, also on the wrapper line", async () => {
    const diagnostics = await checker.check(
      "import { add } from '@capabilities/math'; const s: string = await add({ a: 1, b: 2 });\nreturn s;",
    );
    expect(diagnostics).toEqual([expect.objectContaining({ line: 1, column: 49, code: 2322 })]);
  });
  it('reports wrong arguments and unknown modules', async () => {
    const wrongArgs = await checker.check("import { add } from '@capabilities/math';\n\nawait add({ a: '1', b: 2 });");
    expect(wrongArgs[0]).toMatchObject({ line: 3, code: 2322 });
    const unknown = await checker.check("import { x } from '@capabilities/nope';\nreturn x;");
    expect(unknown[0]).toMatchObject({ line: 1, code: 2307 });
  });
  it('takes a promise resolver as a timer handler (the usual sleep), and still checks extra arguments', async () => {
    const sleep = [
      'await new Promise((resolve) => setTimeout(resolve, 10));',
      'await new Promise<void>((resolve) => setTimeout(resolve, 10));',
      'const id = setInterval(() => undefined, 5);',
      'clearInterval(id);',
      "setTimeout((a: number, b: string) => console.log(a, b), 1, 2, 'x');",
      'return 1;',
    ].join('\n');
    expect(await checker.check(sleep)).toEqual([]);
    const wrong = await checker.check("setTimeout((a: number) => console.log(a), 1, 'not a number');\nreturn 1;");
    expect(wrong[0]).toMatchObject({ line: 1 });
  });
  it('has no DOM or Node globals', async () => {
    const diagnostics = await checker.check('document.title = "x";\nprocess.exit(1);');
    expect(diagnostics.map((diagnostic) => diagnostic.line)).toEqual([1, 2]);
  });
  it('reports refused programs as diagnostics', async () => {
    expect((await checker.check("import fs from 'fs';"))[0]?.message).toContain('refused');
  });
  it('checks types anywhere: type-only imports after statements, exported types', async () => {
    expect(
      await checker.check("const n: Customer | undefined = undefined;\nimport type { Customer } from '@capabilities/crm';\nreturn n;"),
    ).toEqual([]);
    expect(
      await checker.check('const a = 1;\nexport interface X { a: number }\nexport type Y = X;\nexport default { a } satisfies Y;'),
    ).toEqual([]);
  });

  describe('declarations', () => {
    const outDir = mkdtempSync(path.join(tmpdir(), 'type-check-'));
    afterAll(() => rmSync(outDir, { recursive: true, force: true }));
    const declare = (returns: string): void =>
      writeFileSync(
        path.join(outDir, 'capabilities.d.ts'),
        `declare module '@capabilities/clock' {\n  export function now(): Promise<${returns}>;\n}\n`,
      );

    it('keeps the declarations between checks but reads each program anew, and takes changed declarations', async () => {
      declare('number');
      // In the worker's thread, so the project is the same one from check to check.
      const project = createProgramChecker({ outDir });
      expect(project.refreshDeclarations()).toBe(true);
      const uses = (type: string): string => `import { now } from '@capabilities/clock';\nconst n: ${type} = await now();\nreturn n;`;
      expect(project.check(uses('number'))).toEqual([]);
      expect(project.refreshDeclarations()).toBe(false);
      expect(project.check(uses('string'))).toEqual([
        expect.objectContaining({ line: 2, column: 7, code: 2322, message: "Type 'number' is not assignable to type 'string'." }),
      ]);
      expect(project.check(uses('number'))).toEqual([]);
      // The lib, shared by the checks, still has all of ES2022 and nothing of the DOM.
      expect(
        project.check(
          "const last = [1, 'a'].at(-1);\nconst s: string = Object.hasOwn({}, 'x') ? 'y' : new Error('e', { cause: last }).message;\nreturn s;",
        ),
      ).toEqual([]);
      expect(project.check('return document.title;')).toEqual([expect.objectContaining({ line: 1, code: 2584 })]);
      expect(project.check("import { later } from '@capabilities/clock';\nreturn later;")).toEqual([
        expect.objectContaining({ line: 1, code: 2305 }),
      ]);

      writeFileSync(
        path.join(outDir, 'capabilities.d.ts'),
        "declare module '@capabilities/clock' {\n  export function now(): Promise<string>;\n  export const later: number;\n}\n",
      );
      expect(project.refreshDeclarations()).toBe(true);
      expect(project.check(uses('number'))).toEqual([
        expect.objectContaining({ line: 2, code: 2322, message: "Type 'string' is not assignable to type 'number'." }),
      ]);
      expect(project.check("import { later } from '@capabilities/clock';\nreturn later;")).toEqual([]);
      // A second project of the same thread shares the lib, with declarations of its own.
      const other = createProgramChecker({ outDir: FIXTURE_OUT_DIR });
      other.refreshDeclarations();
      expect(other.check(uses('number'))[0]).toMatchObject({ line: 1, code: 2307 });
      expect(project.check(uses('string'))).toEqual([]);
    });

    it('answers a program checked before against the same declarations without a new check, and checks it again when they change', async () => {
      declare('number');
      const project = createProgramChecker({ outDir });
      project.refreshDeclarations();
      const program = "import { now } from '@capabilities/clock';\nconst n: string = await now();\nreturn n;";
      const first = project.check(program);
      expect(first).toEqual([expect.objectContaining({ line: 2, code: 2322 })]);
      // The same answer, not a new TypeScript program: a cache hit.
      expect(project.check(program)).toBe(first);
      // One more character is another program.
      expect(project.check(`${program}\n`)).not.toBe(first);
      declare('string');
      expect(project.refreshDeclarations()).toBe(true);
      expect(project.check(program)).toEqual([]);
    });

    it('checks against the declarations the build wrote last', async () => {
      const fresh = createTypeChecker({ outDir });
      const program = "import { now } from '@capabilities/clock';\nconst n: number = await now();\nreturn n;";
      declare('number');
      expect(await fresh.check(program)).toEqual([]);
      declare('string');
      expect(await fresh.check(program)).toEqual([expect.objectContaining({ line: 2, code: 2322 })]);
    });
  });

  describe('limits', () => {
    it('stops a check that takes too long; the host and other checks go on meanwhile', async () => {
      const limited = createTypeChecker({ outDir: FIXTURE_OUT_DIR, timeoutMs: 5_000, memoryLimitMb: 1_024 });
      // Two warm workers: the pathological check takes one, the other keeps serving.
      await Promise.all([limited.check('return 1;'), limited.check('return 2;')]);
      let ticks = 0;
      const ticking = setInterval(() => ticks++, 5);
      let stopped = false;
      const pathological = limited.check(PATHOLOGICAL).finally(() => (stopped = true));
      try {
        const other = await limited.check('const s: string = 1;\nreturn s;');
        expect(other).toEqual([expect.objectContaining({ line: 1, code: 2322 })]);
        expect(stopped).toBe(false);
        expect(await pathological).toEqual([
          {
            line: 1,
            column: 1,
            code: TYPE_CHECK_STOPPED,
            message: expect.stringMatching(/took longer than 5 s and was stopped; simplify its types or run with check: false/),
          },
        ]);
      } finally {
        clearInterval(ticking);
      }
      // The host's event loop kept turning while the check ran (a blocked host would show none).
      expect(ticks).toBeGreaterThan(10);
      // The next check gets a fresh worker.
      expect(await limited.check('const n: number = 1;\nreturn n;')).toEqual([]);
    }, 120_000);

    it('stops a check that runs out of memory: it costs its worker only', async () => {
      const small = createTypeChecker({ outDir: FIXTURE_OUT_DIR, memoryLimitMb: 64, timeoutMs: 300_000 });
      const [result] = await small.check(PATHOLOGICAL);
      expect(result).toMatchObject({ code: TYPE_CHECK_STOPPED, message: expect.stringMatching(/used more than 64 MB and was stopped/) });
      expect(await small.check('const n: number = 1;\nreturn n;')).toEqual([]);
    }, 300_000);
  });
});

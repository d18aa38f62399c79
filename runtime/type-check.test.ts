import { describe, expect, it } from 'vitest';
import { FIXTURE_OUT_DIR } from './sandbox.contract.js';
import { createTypeChecker } from './type-check.js';

describe('createTypeChecker', () => {
  const checker = createTypeChecker({ outDir: FIXTURE_OUT_DIR });

  it('accepts a program that uses capabilities correctly', () => {
    expect(checker.check("import { add } from '@capabilities/math';\nimport crm from '@capabilities/crm';\nconst c = await crm.getCustomer({ id: 'x' });\nconsole.log(c.email);\nreturn await add({ a: 1, b: 2 });")).toEqual([]);
  });
  it('reports errors in the program\'s own lines and columns, also on the wrapper line', () => {
    const diagnostics = checker.check("import { add } from '@capabilities/math'; const s: string = await add({ a: 1, b: 2 });\nreturn s;");
    expect(diagnostics).toEqual([expect.objectContaining({ line: 1, column: 49, code: 2322 })]);
  });
  it('reports wrong arguments and unknown modules', () => {
    const wrongArgs = checker.check("import { add } from '@capabilities/math';\n\nawait add({ a: '1', b: 2 });");
    expect(wrongArgs[0]).toMatchObject({ line: 3, code: 2322 });
    const unknown = checker.check("import { x } from '@capabilities/nope';\nreturn x;");
    expect(unknown[0]).toMatchObject({ line: 1, code: 2307 });
  });
  it('has no DOM or Node globals', () => {
    const diagnostics = checker.check('document.title = "x";\nprocess.exit(1);');
    expect(diagnostics.map((diagnostic) => diagnostic.line)).toEqual([1, 2]);
  });
  it('reports refused programs as diagnostics', () => {
    expect(checker.check("import fs from 'fs';")[0]?.message).toContain('refused');
  });
});

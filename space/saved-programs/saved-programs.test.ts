import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCallError } from '../../core/index.js';
import { accessFromIds, type ApprovalRequest } from '../../core/index.js';
import { createSpace, type Space } from '../create-space.js';
import { MAX_SAVED_DEPTH, parseSavedName, readProgramSignature, saveProgram, SavedProgramError } from './index.js';
import { ADD_NOTES, makeSavedSpace, REMOVE_FIRST } from './test-support/saved-space.js';

const errorOf = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );

describe('saved program names', () => {
  it('parses <group>.<function> and says what is wrong with any other', () => {
    expect(parseSavedName('reports.weeklySummary')).toEqual({ group: 'reports', name: 'weeklySummary' });
    expect(parseSavedName('weekly-reports.a1')).toEqual({ group: 'weekly-reports', name: 'a1' });
    expect(() => parseSavedName('weeklySummary')).toThrow('"weeklySummary" is not a saved program name: use <group>.<function>');
    expect(() => parseSavedName('a.b.c')).toThrow('use <group>.<function>');
    expect(() => parseSavedName('Reports.x')).toThrow('"Reports" (in "Reports.x") is not a group name');
    expect(() => parseSavedName('../etc.x')).toThrow('is not a saved program name');
    expect(() => parseSavedName('reports.weekly-summary')).toThrow('"weekly-summary" (in "reports.weekly-summary") is not a function name');
    expect(() => parseSavedName('reports.delete')).toThrow('"delete" (in "reports.delete") is a reserved word');
  });
});

describe('the saved form', () => {
  it('reads the signature and the functions the program imports', async () => {
    const signature = await readProgramSignature(ADD_NOTES);
    expect(signature).toMatchObject({
      functionName: 'addNotes',
      line: 8,
      parameter: { name: 'input', typeText: '{ texts: string[]; prefix?: string }' },
      resultTypeText: 'Summary',
      calls: ['notes.add', 'notes.list'],
    });
  });

  it.each([
    ['const x = 1;\nexport default x;', 'the default export is not a function declaration (program.ts, line 2)'],
    ['export const a = 1;', 'program.ts has no `export default async function`'],
    [
      '\nexport default function f(): Promise<number> { return Promise.resolve(1); }',
      'the exported function is not `async` (program.ts, line 2)',
    ],
    ['export default async function f(a: { x: number }, b: string): Promise<number> { return 1; }', 'takes more than one parameter'],
    ['export default async function f(a): Promise<number> { return 1; }', 'the parameter has no type annotation (program.ts, line 1)'],
    ['export default async function f() { return 1; }', 'declares no result type'],
    ['export default async function f(): number { return 1; }', 'the result type `number` is not `Promise<...>`'],
    ['export default async function f<T>(x: T): Promise<T> { return x; }', 'the exported function is generic'],
  ])('refuses %j with the line and the form', async (code, message) => {
    const error = await errorOf(readProgramSignature(code));
    expect(error).toBeInstanceOf(SavedProgramError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).toContain(
      'a saved program has the form `export default async function name(input: { ... }): Promise<Result>`',
    );
  });
});

describe('saving and calling saved programs', () => {
  let space: Space;
  let root: string;
  const approvals: ApprovalRequest[] = [];
  let approve = true;

  beforeAll(async () => {
    const made = await makeSavedSpace('saved-programs');
    root = made.root;
    space = await createSpace({
      config: made.config,
      isolation: 'in-process',
      approvalHandler: async (request) => {
        approvals.push(request);
        return { approved: approve, reason: 'test policy' };
      },
    });
    await space.build();
  }, 60_000);

  afterAll(async () => {
    await space?.close();
  });

  it('saves a program as a typed function, callable from a later program and directly', async () => {
    // The space is started (a run) before the save: the save must reach the running bridge too.
    expect((await space.run("import { list } from '@capabilities/notes';\nexport default await list();")).result).toEqual([]);
    const report = await saveProgram(space, ADD_NOTES, { as: 'notes-tools.addNotes', origin: { savedBy: 'test', runId: 'run-1' } });
    expect(report).toMatchObject({ name: 'notes-tools.addNotes', module: 'saved-notes-tools', function: 'addNotes', replaced: false });
    expect(report.calls).toEqual(['notes.add', 'notes.list']);
    expect(report.path).toBe(path.join(root, 'saved', 'notes-tools', 'addNotes.ts'));
    expect(await readFile(report.path, 'utf8')).toBe(ADD_NOTES);
    const meta = JSON.parse(await readFile(path.join(root, 'saved', 'notes-tools', 'addNotes.json'), 'utf8'));
    expect(meta.origin).toMatchObject({ savedBy: 'test', runId: 'run-1' });
    expect(meta.inputSchema).toMatchObject({ type: 'object', required: ['texts'] });

    const declarations = await readFile(path.join(space.config.outDir, 'capabilities', 'saved-notes-tools', 'index.d.ts'), 'utf8');
    expect(declarations).toContain('addNotes');
    expect(declarations).toContain('texts');

    const later = await space.run(
      "import { addNotes } from '@capabilities/saved-notes-tools';\nconst s = await addNotes({ texts: ['a', 'b'], prefix: '#' });\nexport default s.count;",
    );
    expect(later.error, JSON.stringify(later.error)).toBeUndefined();
    expect(later.result).toBe(2);
    expect(await space.callTool('saved-notes-tools.addNotes', { texts: ['c'] })).toEqual({ count: 3, notes: ['#a', '#b', 'c'] });
    // The saved schema refuses what the signature does not take, before anything runs.
    const bad = await errorOf(space.callTool('saved-notes-tools.addNotes', { texts: 'c' }));
    expect((bad as ToolCallError).code).toBe('INVALID_ARGUMENTS');
    // The type-check of later programs knows the signature.
    const typed = await space.run(
      "import { addNotes } from '@capabilities/saved-notes-tools';\nexport default await addNotes({ text: 'x' });",
    );
    expect(typed.error?.code).toBe('TYPE_CHECK_FAILED');
  }, 60_000);

  it('replaces a program saved under the same name, and says so', async () => {
    const report = await saveProgram(space, ADD_NOTES.replace('count: notes.length', 'count: notes.length * 10'), {
      as: 'notes-tools.addNotes',
      origin: { savedBy: 'test' },
    });
    expect(report.replaced).toBe(true);
    expect(report.message).toMatch(/^replaced notes-tools\.addNotes: import \{ addNotes \} from '@capabilities\/saved-notes-tools'/);
    const replaced = (await space.callTool('saved-notes-tools.addNotes', { texts: ['x'] })) as { count: number; notes: string[] };
    expect(replaced.count).toBe(replaced.notes.length * 10);
  }, 60_000);

  it('refuses a program that does not type-check against the current capabilities, writing nothing', async () => {
    const code =
      "import { add } from '@capabilities/notes';\nexport default async function f(): Promise<number> {\n  return (await add({ txt: 'x' })).count;\n}\n";
    const error = await errorOf(saveProgram(space, code, { as: 'broken.f', origin: { savedBy: 'test' } }));
    expect(error).toBeInstanceOf(SavedProgramError);
    expect((error as Error).message).toMatch(
      /^program\.ts does not type-check against the current capabilities; nothing was saved:\n {2}program\.ts:3:/,
    );
    expect(existsSync(path.join(root, 'saved', 'broken'))).toBe(false);
    const name = await errorOf(saveProgram(space, ADD_NOTES, { as: 'Broken', origin: { savedBy: 'test' } }));
    expect((name as Error).message).toContain('"Broken" is not a saved program name');
  }, 60_000);

  it('refuses a result type that is not JSON data, naming it', async () => {
    const code = 'export default async function f(): Promise<Map<string, number>> {\n  return new Map();\n}\n';
    const error = await errorOf(saveProgram(space, code, { as: 'broken.f', origin: { savedBy: 'test' } }));
    expect((error as Error).message).toContain('the result type `Map<string, number>` is not JSON data');
    expect((error as Error).message).toContain('line 1');
  }, 60_000);

  it('asks for approval of every underlying call that needs it: saving grants nothing', async () => {
    await saveProgram(space, REMOVE_FIRST, { as: 'cleanup.removeFirst', origin: { savedBy: 'test' } });
    approvals.length = 0;
    approve = true;
    const result = await space.run(
      "import { removeFirst } from '@capabilities/saved-cleanup';\nimport { add } from '@capabilities/notes';\nawait add({ text: 'first' });\nexport default await removeFirst();",
    );
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(result.result).toHaveLength(1);
    expect(approvals.map((request) => `${request.capability}.${request.function}`)).toEqual(['notes.remove']);

    approve = false;
    const denied = await errorOf(space.callTool('saved-cleanup.removeFirst', {}));
    expect((denied as ToolCallError).code).toBe('APPROVAL_DENIED');
    expect((denied as Error).message).toContain('saved program cleanup.removeFirst failed (removeFirst.ts, line 4)');
    expect(approvals).toHaveLength(2);
    approve = true;
  }, 60_000);

  it("refuses inside the saved program what the caller's access refuses", async () => {
    const access = accessFromIds(['saved-cleanup.removeFirst', 'saved-notes-tools.addNotes'], 'this test');
    const refused = await errorOf(space.callTool('saved-cleanup.removeFirst', {}, { access }));
    expect((refused as ToolCallError).code).toBe('ACCESS_DENIED');
    expect((refused as Error).message).toBe(
      'notes.remove is not available to this test, and saved program cleanup.removeFirst calls it: saving a program grants nothing',
    );
    const inRun = await space.run(
      "import { addNotes } from '@capabilities/saved-notes-tools';\nexport default await addNotes({ texts: ['x'] });",
      {
        access,
      },
    );
    expect(inRun.success).toBe(false);
    expect(inRun.error?.code).toBe('ACCESS_DENIED');
  }, 60_000);

  it('refuses recursion and nesting past the bound clearly', async () => {
    await saveProgram(space, 'export default async function again(input: { n: number }): Promise<number> {\n  return input.n;\n}\n', {
      as: 'loops.again',
      origin: { savedBy: 'test' },
    });
    const recursive = [
      "import { again as self } from '@capabilities/saved-loops';",
      'export default async function again(input: { n: number }): Promise<number> {',
      '  return input.n <= 0 ? 0 : 1 + (await self({ n: input.n - 1 }));',
      '}',
      '',
    ].join('\n');
    await saveProgram(space, recursive, { as: 'loops.again', origin: { savedBy: 'test' } });
    const error = await errorOf(space.callTool('saved-loops.again', { n: 3 }));
    expect((error as Error).message).toContain(
      'saved program loops.again calls itself (loops.again → loops.again); saved programs may not recurse',
    );
    expect(MAX_SAVED_DEPTH).toBeGreaterThan(1);
  }, 60_000);

  it('reports a source changed by hand instead of running it', async () => {
    const file = path.join(root, 'saved', 'cleanup', 'removeFirst.ts');
    await writeFile(file, `${REMOVE_FIRST}\n// edited\n`);
    const error = await errorOf(space.callTool('saved-cleanup.removeFirst', {}));
    expect((error as Error).message).toContain('changed since it was saved');
  }, 60_000);
});

/**
 * The native one-shot type-check (TypeScript 7's `tsc`, runtime/type-check/native-check.ts) against a
 * hostile program text: checks stopped at their time or memory limit leave no compiler running and no
 * folder behind in the temporary folder; a program cannot make `tsc` read a file outside its check
 * folder (a module declaration, JSDoc import types, a reference after the first statement), nor make the
 * checker give up the native compiler with a message that looks like another file's error, nor learn
 * the host's build path from a message (the native checker answers as TypeScript 5 does).
 *
 * The file runs in a process of its own (vitest's forks pool): its temporary folder is its own.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';
import { createTypeChecker, TYPE_CHECK_STOPPED, useNativeTypeChecker } from '../../runtime/type-check.js';
import { createProgramChecker } from '../../runtime/type-check/language-service.js';
import { createNativeProgramChecker } from '../../runtime/type-check/native-check.js';
import { findNativeTsc } from '../../runtime/type-check/native-tsc.js';
import { REPO } from '../support/example-space.js';

const tsc = findNativeTsc();
if (!tsc.ok) throw new Error(`the native compiler must be installed for these tests: ${tsc.reason}`);
const TSC_EXE = tsc.exe;
const root = mkdtempSync(path.join(os.tmpdir(), 'native-check-hostile-'));
// Every check folder of this process (and its check threads, started later) goes here.
const temp = path.join(root, 'tmp');
mkdirSync(temp);
const previousTmp = process.env['TMPDIR'];
process.env['TMPDIR'] = temp;
afterAll(() => {
  if (previousTmp === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = previousTmp;
  rmSync(root, { recursive: true, force: true });
});

/** What the checks left in the temporary folder (tsx keeps a cache of its own there). */
const leftovers = (): string[] => readdirSync(temp).filter((name) => name.startsWith('agent-spaces-check-'));

/** Processes of the native compiler still running (Linux's /proc): their command lines name its binary. */
function runningCompilers(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0] === TSC_EXE) found.push(Number(entry));
    } catch {
      // it ended
    }
  }
  return found;
}

const EXPLODE = `type Explode<T, N extends unknown[] = []> = N['length'] extends 24 ? T : Explode<[T, T], [...N, 0]> | Explode<{ a: T }, [...N, 0]>;
declare const x: Explode<string>;
const y: number = x;
return y;`;
const HEALTHY = "import { add } from '@capabilities/math';\nconst s: string = await add({ a: 1, b: 2 });\nreturn s;";

describe('limits: the compiler is stopped and nothing is left behind', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    expect(await useNativeTypeChecker()).toMatchObject({ native: true });
  });

  it('checks stopped at their time limit leave no folder in the temporary folder and no compiler running', async () => {
    const before = runningCompilers();
    const checker = createTypeChecker({ outDir: FIXTURE_OUT_DIR });
    // Short limits too (a run's own limit bounds its check): the check's own set-up takes part of them.
    for (const timeoutMs of [200, 300, 500, 1500]) {
      const stopped = await checker.check(EXPLODE, { timeoutMs });
      expect(stopped).toEqual([
        expect.objectContaining({ code: TYPE_CHECK_STOPPED, message: expect.stringContaining('took longer than') }),
      ]);
    }
    // The checker still checks natively, and its answer is right.
    expect(await checker.check(HEALTHY)).toEqual([expect.objectContaining({ line: 2, code: 2322 })]);
    expect(leftovers()).toEqual([]);
    expect(runningCompilers().filter((pid) => !before.includes(pid))).toEqual([]);
  });

  it('a check stopped past its memory limit leaves nothing behind either', async () => {
    // The check's time limit is the checker's and the call's, whichever is less: both far above what
    // reaching 160 MB takes on a loaded machine (it was the 10 s default: stopped by time at load 6).
    const checker = createTypeChecker({ outDir: FIXTURE_OUT_DIR, memoryLimitMb: 160, timeoutMs: 100_000 });
    const stopped = await checker.check(EXPLODE, { timeoutMs: 100_000 });
    expect(stopped).toEqual([
      expect.objectContaining({ code: TYPE_CHECK_STOPPED, message: expect.stringContaining('used more than 160 MB') }),
    ]);
    expect(leftovers()).toEqual([]);
  });

  it('a host that exits during a check leaves its folder to the next check, which removes it', async () => {
    const script = `
      const { createTypeChecker, useNativeTypeChecker } = await import(${JSON.stringify(pathToFileURL(path.join(REPO, 'runtime', 'type-check.ts')).href)});
      await useNativeTypeChecker();
      const checker = createTypeChecker({ outDir: ${JSON.stringify(FIXTURE_OUT_DIR)} });
      void checker.check(${JSON.stringify(EXPLODE)}, { timeoutMs: 60_000 });
      // Once the compiler runs in its folder, the host ends (as a person's Ctrl-C would).
      const poll = setInterval(() => {
        if (readdirSync(process.env.TMPDIR).some((name) => name.startsWith('agent-spaces-check-'))) { clearInterval(poll); setTimeout(() => process.exit(0), 300); }
      }, 20);
    `;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', `import { readdirSync } from 'node:fs';\n${script}`],
      {
        cwd: REPO,
        env: { ...process.env, TMPDIR: temp },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const abandoned = leftovers();
    expect(abandoned).toEqual([expect.stringMatching(new RegExp(`^agent-spaces-check-${child.pid}-`))]);
    // A folder of a process that still runs is another check's: kept.
    const running = path.join(temp, `agent-spaces-check-${process.ppid}-kept`);
    mkdirSync(running);
    const checker = createTypeChecker({ outDir: FIXTURE_OUT_DIR });
    expect(await checker.check(HEALTHY)).toEqual([expect.objectContaining({ line: 2, code: 2322 })]);
    expect(leftovers()).toEqual([path.basename(running)]);
    rmSync(running, { recursive: true });
  });

  it('a huge program (30,000 declarations) is checked, and its folder removed', async () => {
    const lines = Array.from({ length: 30_000 }, (_, index) => `const v${index}: number = ${index};`);
    const code = `${lines.join('\n')}\nconst wrong: string = v7;\nreturn wrong;`;
    const checker = createTypeChecker({ outDir: FIXTURE_OUT_DIR, timeoutMs: 100_000 });
    expect(await checker.check(code, { timeoutMs: 100_000 })).toEqual([expect.objectContaining({ line: 30_001, code: 2322 })]);
    expect(leftovers()).toEqual([]);
  });
});

describe('a program text against the check folder', { timeout: 120_000 }, () => {
  const secretDir = path.join(root, 'host');
  const secret = path.join(secretDir, 'secret.ts');
  const globalSecret = path.join(secretDir, 'globals.d.ts');
  beforeAll(() => {
    mkdirSync(secretDir);
    writeFileSync(secret, "export const API_KEY = 'sk-do-not-print';\nexport type Key = 'sk-do-not-print';\n");
    writeFileSync(globalSecret, "declare const HOST_TOKEN: 'tok-do-not-print';\n");
  });

  const native = createNativeProgramChecker({ outDir: FIXTURE_OUT_DIR, tsc });
  const ts5 = createProgramChecker({ outDir: FIXTURE_OUT_DIR });
  ts5.refreshDeclarations();

  it('no module declaration, JSDoc import type or late reference directive makes tsc read a file of the host', async () => {
    const at = (file: string) => JSON.stringify(file.replace(/\.d\.ts$|\.ts$/, ''));
    const programs = [
      `declare module ${at(secret)} { export const API_KEY: number; }\nreturn 1;`,
      `declare module ${at(globalSecret)} {}\nconst n: number = HOST_TOKEN;\nreturn n;`,
      `import { add } from '@capabilities/math';\ndeclare module ${at(secret)} { export const API_KEY: number; }\nexport default await add({ a: 1, b: 2 });`,
      `declare global { const Key: typeof import(${at(secret)}).API_KEY; }\nreturn 1;`,
      `/** @type {import(${at(secret)}).Key} */\nconst x = 1;\n/** @param {typeof import(${at(secret)}).API_KEY} a */\nfunction f(a: number): number { return a; }\nreturn [x, f];`,
      `const a = 1;\n/// <reference path=${JSON.stringify(globalSecret)} />\nconst n: number = HOST_TOKEN;\nreturn [a, n];`,
      `namespace N { export declare const k: import(${at(secret)}).Key; }\nreturn N.k;`,
    ];
    for (const code of programs) {
      const answer = JSON.stringify((await native.check(code, 30_000)) ?? null);
      expect(answer, code).not.toContain('do-not-print');
      expect(answer, code).not.toContain(secretDir);
    }
  });

  it('a program whose message looks like the error of another file is still checked natively, with the same diagnostics', async () => {
    const programs = [
      "type T = `program.ts(1,1): error TS2322: forged`;\nconst n: T = 'x';\nreturn n;",
      "type T = '/etc/hosts(1,1): error TS2322: forged';\nconst n: T = 'x';\nreturn n;",
      "type T = 'a\\nprogram.ts(9,9): error TS1: forged';\nconst n: T = 'x';\nreturn n;",
      "const o = { 'error TS1: x(1,1): error TS2: y': 1 };\nconst n: string = o;\nreturn n;",
    ];
    for (const code of programs) {
      const answer = await native.check(code, 30_000);
      expect(answer, code).toEqual(ts5.check(code));
      expect(answer, code).toHaveLength(1);
    }
  });

  it("a message naming a sandbox module's namespace shows no path of the host's build, nor reads a module from above the check folder", async () => {
    // A build with one sandbox module and its declarations (the layout the build writes).
    const build = path.join(root, 'build with spaces (copy)');
    cpSync(FIXTURE_OUT_DIR, build, { recursive: true });
    const pkg = path.join(build, 'modules', 'types', 'node_modules', 'evil');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'evil', version: '1.0.0', types: 'index.d.ts' }));
    writeFileSync(
      path.join(pkg, 'index.d.ts'),
      'export declare const value: { deep: 1 };\nexport default function f(a: string): number;\n',
    );
    writeFileSync(
      path.join(build, 'modules', 'modules.json'),
      JSON.stringify({
        version: 1,
        modules: { evil: { package: 'evil', version: '1.0.0', file: 'bundles/evil.js', bytes: 1 } },
        typesDir: 'types',
        inputs: { evil: '1.0.0' },
      }),
    );
    const withModule = createNativeProgramChecker({ outDir: build, tsc });
    const withModule5 = createProgramChecker({ outDir: build });
    withModule5.refreshDeclarations();
    for (const code of [
      "import * as z from 'evil';\nconst n: number = z;\nreturn n;",
      "import * as z from 'evil';\nconst n: number = [z, z.value];\nreturn n;",
    ]) {
      const answer = await withModule.check(code, 30_000);
      expect(answer, code).toEqual(withModule5.check(code));
      expect(JSON.stringify(answer), code).not.toContain(build);
      expect(JSON.stringify(answer), code).not.toContain(temp);
    }
    expect(leftovers()).toEqual([]);

    // tsc looks for a module in the node_modules of every folder above its own (TMPDIR's, /): what any
    // user of a shared /tmp may put there is not the build's, and is not read into the program.
    const planted = path.join(temp, 'node_modules');
    mkdirSync(path.join(planted, 'evil'), { recursive: true });
    mkdirSync(path.join(planted, '@capabilities', 'nope'), { recursive: true });
    writeFileSync(path.join(planted, 'evil', 'sub.d.ts'), "export declare const planted: 'planted-do-not-print';\n");
    writeFileSync(path.join(planted, '@capabilities', 'nope', 'index.d.ts'), "export declare const planted: 'planted-do-not-print';\n");
    try {
      for (const [checker, checker5, code] of [
        [withModule, withModule5, "import { planted } from 'evil/sub';\nconst n: 1 = planted;\nreturn n;"],
        [native, ts5, "import { planted } from '@capabilities/nope';\nconst n: 1 = planted;\nreturn n;"],
      ] as const) {
        const answer = await checker.check(code, 30_000);
        expect(JSON.stringify(answer ?? null), code).not.toContain('planted-do-not-print');
        // Left to TypeScript 5 (undefined), or the same answer.
        if (answer !== undefined) expect(answer, code).toEqual(checker5.check(code));
      }
    } finally {
      rmSync(planted, { recursive: true });
    }
  });
});

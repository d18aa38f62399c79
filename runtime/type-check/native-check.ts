/**
 * The one-shot type check with TypeScript 7's native compiler (its `tsc` binary), for a process that
 * checks a program or two and would otherwise spend most of its start loading TypeScript 5 and binding
 * its lib (the CLI's `run`). The program is the one the TypeScript 5 checker makes (language-service.ts):
 * the same prepared program text, the build's `capabilities.d.ts`, the sandbox's globals, the sandbox
 * modules' declarations, the same compiler options and one lib file of ES2022 without shared memory;
 * so the diagnostics, mapped back through the same steps (`startCheck`, `finishCheck`), are the same.
 * The files are written to a folder of the check's own under the system's temporary folder (removed
 * after it), checked by `tsc -p`, and its output read. `tsc` reports no type errors of a program with a syntax error (it
 * stops at those), so such a program is checked by TypeScript 5 instead, which reports both.
 */
import { spawn } from 'node:child_process';
import { threadId } from 'node:worker_threads';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ts as Ts } from 'ts-morph';
import { ts } from '../program/typescript.js';
import { BUILD_LAYOUT } from '../../core/manifest.js';
import type { Diagnostic } from '../../core/run-result.js';
import { SANDBOX_GLOBALS_DECLARATION } from '../sandbox-globals.js';
import { FOLDER_PREFIX, threadFolderPrefix } from './check-folders.js';
import { TYPE_CHECK_STOPPED } from './check-protocol.js';
import { finishCheck, readSandboxModules, SHARED_MEMORY_LIB, startCheck } from './language-service.js';
import type { NativeTsc } from './native-tsc.js';

/** What the native compiler could not do: the caller checks with TypeScript 5 instead, and says why. */
export class NativeCheckUnavailable extends Error {}

export interface NativeProgramChecker {
  /**
   * Type errors of the program (see ProgramChecker.check); `undefined`: a syntax error, for TypeScript 5 to check.
   * `timeoutMs` runs from `startedAt` (default: now), when the check pool's own clock for it started.
   */
  check(code: string, timeoutMs: number, startedAt?: number): Promise<Diagnostic[] | undefined>;
}

const LIB_ENTRY = 'lib.es2022.d.ts';

/** The compiler options of language-service.ts's COMPILER_OPTIONS, as a tsconfig says them (the lib is a root file here). */
const COMPILER_OPTIONS = {
  strict: true,
  target: 'es2022',
  module: 'esnext',
  moduleResolution: 'bundler',
  moduleDetection: 'force',
  noLib: true,
  types: [],
  noEmit: true,
  skipLibCheck: true,
  noUncheckedIndexedAccess: true,
};

/** ES2022's lib files folded into one text, as language-service.ts's `loadLib` does (shared memory left out). */
export function combinedLib(libDir: string): string {
  const order: string[] = [];
  const seen = new Set<string>();
  // TypeScript takes a lib file after the files it references, in the order it names them.
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    const text = readFileSync(path.join(libDir, name), 'utf8');
    for (const match of text.matchAll(/^\/\/\/ *<reference +lib="([^"]+)" *\/>/gm)) visit(`lib.${(match[1] as string).toLowerCase()}.d.ts`);
    order.push(name);
  };
  visit(LIB_ENTRY);
  return order
    .filter((name) => !SHARED_MEMORY_LIB.test(`/${name}`))
    .map((name) => readFileSync(path.join(libDir, name), 'utf8').replace(/^\/\/\/ *<reference +lib=[^\n]*\n/gm, ''))
    .join('\n');
}

export interface NativeCheckerOptions {
  outDir: string;
  tsc: Extract<NativeTsc, { ok: true }>;
  /** The compiler's memory (resident set) past which it is stopped like a check past its time (default: none). */
  memoryLimitMb?: number;
  /** Told the compiler's process id when it starts, and `undefined` when it ended (the host kills it if it stops the worker). */
  onCompiler?: (pid: number | undefined) => void;
}

export function createNativeProgramChecker(options: NativeCheckerOptions): NativeProgramChecker {
  const declarations = path.join(options.outDir, BUILD_LAYOUT.declarationsFile);
  const lib = combinedLib(options.tsc.libDir);
  const { modules, types } = readSandboxModules(options.outDir);

  return {
    async check(code, timeoutMs, startedAt = Date.now()) {
      const start = startCheck(code);
      if (!start.ok) return start.diagnostics;
      const file = ts.createSourceFile('program.ts', start.prepared.source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
      if ((file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length > 0) return undefined;
      // tsc reads the disk, TypeScript 5's checker only what it is given: a program that names any other
      // file (a reference, an import type, a path) is checked by TypeScript 5, so no error message can
      // quote a file of the host's.
      if (namesOtherFiles(file, modules)) return undefined;
      // A folder per check, removed after it: nothing is left behind by a checker that is never disposed.
      // Its name says which process made it: a process that ended during a check (its thread stopped
      // with it) left its folder, which a later check removes.
      removeAbandonedFolders(os.tmpdir());
      const folder = mkdtempSync(path.join(os.tmpdir(), threadFolderPrefix(threadId)));
      try {
        writeFileSync(path.join(folder, 'lib.d.ts'), lib);
        writeFileSync(path.join(folder, 'sandbox-globals.d.ts'), SANDBOX_GLOBALS_DECLARATION);
        writeFileSync(path.join(folder, 'program.ts'), start.prepared.source);
        // The declarations only while the build has them (a build may write them later).
        const present = statSync(declarations, { throwIfNoEntry: false }) !== undefined;
        const files = ['lib.d.ts', 'sandbox-globals.d.ts', 'program.ts', ...(present ? [declarations] : [])];
        writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions: COMPILER_OPTIONS, files }));
        // The sandbox modules' declarations are the program's node_modules, as in language-service.ts's host.
        if (types !== undefined) symlinkSync(path.join(types.root, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
        else mkdirSync(path.join(folder, 'node_modules'));
        // A little before the pool's own limit, on the same clock (the set-up above counts): the compiler
        // is stopped and the folder removed here, not left behind by a worker the pool terminates.
        const left = timeoutMs - (Date.now() - startedAt) - Math.min(250, timeoutMs / 5);
        if (left < 1) return stoppedAfter(timeoutMs);
        const output = await runTsc(options, folder, left);
        if (output === 'timeout') return stoppedAfter(timeoutMs);
        if (output === 'memory') return stoppedPastMemory(options.memoryLimitMb ?? 0);
        // tsc looks for a module in the node_modules of every folder above its own too (TMPDIR's, /):
        // a program that reads a file from outside the check's files is checked by TypeScript 5.
        const { files: read, lines } = listedFiles(output);
        if (!read.every(checkFileWithin(folder, types?.root, declarations))) return undefined;
        const diagnostics = programDiagnostics(lines);
        // tsc names a module by its real path: the names TypeScript 5 gives these files, not the host's.
        const names = hostNames(folder, types?.root, declarations);
        return finishCheck(
          start,
          file,
          modules,
          diagnostics.map((found) => ({ ...found, message: names(found.message) })),
        );
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

/** The file of a check folder that names the compiler checking in it (written once it started). */
const COMPILER_FILE = 'compiler.pid';

/**
 * Removes check folders (`agent-spaces-check-<pid>-…`) of this user that no check uses: those of a
 * process that has ended (a process that exits during a check ends its check thread before that
 * removes its folder), and this process's whose compiler has ended (the check pool terminated its
 * thread, then killed the compiler, before the thread removed it).
 */
function removeAbandonedFolders(tmp: string): void {
  let names: string[];
  try {
    names = readdirSync(tmp).filter((name) => name.startsWith(FOLDER_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name.slice(FOLDER_PREFIX.length))?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0) continue;
    const folder = path.join(tmp, name);
    if (pid === process.pid ? !compilerEnded(folder) : processLives(pid)) continue;
    try {
      if (statSync(folder).uid !== process.getuid?.()) continue;
      rmSync(folder, { recursive: true, force: true });
    } catch {
      // another user's, or removed meanwhile
    }
  }
}

/** Whether the compiler of this process's check folder has ended (not when it has not started yet). */
function compilerEnded(folder: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(folder, COMPILER_FILE), 'utf8'));
  } catch {
    return false;
  }
  return Number.isSafeInteger(pid) && pid > 0 && !processLives(pid);
}

/** Whether process `pid` is running (a zombie has ended; another user's process is running). */
function processLives(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** The real path of `file` (symbolic links followed, as tsc names files), or `file` when it cannot be read. */
function real(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/**
 * Maps the host's paths in a message to the names TypeScript 5's checker gives the same files
 * (language-service.ts): `/node_modules/…` for the sandbox modules' declarations, `/capabilities.d.ts`,
 * `/<file>` for the check folder's files.
 */
function hostNames(folder: string, typesRoot: string | undefined, declarations: string): (message: string) => string {
  const slashes = (file: string): string => file.split(path.sep).join('/');
  const pairs: [string, string][] = [[`${slashes(real(folder))}/`, '/']];
  if (typesRoot !== undefined) pairs.push([`${slashes(real(path.join(typesRoot, 'node_modules')))}/`, '/node_modules/']);
  pairs.push([slashes(real(declarations)).replace(/\.d\.ts$/, ''), '/capabilities']);
  // The longest first: the types folder may lie inside another.
  pairs.sort((a, b) => b[0].length - a[0].length);
  return (message) => pairs.reduce((text, [from, to]) => text.split(from).join(to), message);
}

/**
 * Whether the program names a file other than its capabilities and listed sandbox modules: a reference
 * directive, an import type or `import()`, `import x = require(…)`, or a module specifier that is not
 * `@capabilities/<name>` or a listed module (or a plain subpath of one, without `.` or `..` segments).
 */
export function namesOtherFiles(file: Ts.SourceFile, modules: ReadonlySet<string>): boolean {
  if (file.referencedFiles.length > 0 || file.typeReferenceDirectives.length > 0 || file.libReferenceDirectives.length > 0) return true;
  let found = false;
  const visit = (node: Ts.Node): void => {
    if (found) return;
    if (ts.isImportTypeNode(node) || ts.isImportEqualsDeclaration(node)) found = true;
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) found = true;
    else if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined)
      found = !ts.isStringLiteral(node.moduleSpecifier) || !allowedSpecifier(node.moduleSpecifier.text, modules);
    if (!found) ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function allowedSpecifier(specifier: string, modules: ReadonlySet<string>): boolean {
  const segments = specifier.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.includes('\\'))) return false;
  if (specifier.startsWith('@capabilities/')) return segments.length === 2;
  const name = specifier.startsWith('@') ? segments.slice(0, 2).join('/') : (segments[0] ?? '');
  return modules.has(name);
}

function stoppedAfter(timeoutMs: number): Diagnostic[] {
  return [
    {
      line: 1,
      column: 1,
      code: TYPE_CHECK_STOPPED,
      message: `the type-check of this program took longer than ${timeoutMs / 1000} s and was stopped; simplify its types or run with check: false`,
    },
  ];
}

function stoppedPastMemory(memoryLimitMb: number): Diagnostic[] {
  return [
    {
      line: 1,
      column: 1,
      code: TYPE_CHECK_STOPPED,
      message: `the type-check of this program used more than ${memoryLimitMb} MB and was stopped; simplify its types or run with check: false`,
    },
  ];
}

/** The resident memory of a process in MB, from Linux's /proc (undefined elsewhere, or once it ended). */
function residentMb(pid: number): number | undefined {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return Number.isFinite(pages) ? (pages * 4096) / 1048576 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `tsc -p` in `folder`: what it printed, 'timeout', or 'memory' (past `memoryLimitMb`, measured every
 * 50 ms where /proc tells). Throws NativeCheckUnavailable when it does not run or check.
 */
function runTsc(options: NativeCheckerOptions, folder: string, timeoutMs: number): Promise<string | 'timeout' | 'memory'> {
  const exe = options.tsc.exe;
  return new Promise((resolve, reject) => {
    const child = spawn(exe, ['-p', 'tsconfig.json', '--pretty', 'false', '--listFiles'], {
      cwd: folder,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    let pastMemory = false;
    const limit = options.memoryLimitMb;
    const watch =
      limit === undefined || child.pid === undefined
        ? undefined
        : setInterval(() => {
            if ((residentMb(child.pid ?? -1) ?? 0) <= limit) return;
            pastMemory = true;
            child.kill('SIGKILL');
          }, 50);
    if (child.pid !== undefined) {
      options.onCompiler?.(child.pid);
      writeFileSync(path.join(folder, COMPILER_FILE), String(child.pid));
    }
    child.on('exit', () => {
      clearInterval(watch);
      options.onCompiler?.(undefined);
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => reject(new NativeCheckUnavailable(`${exe} did not start: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') return resolve(pastMemory ? 'memory' : 'timeout');
      // 0: no errors; 1 and 2: errors reported.
      if (code === 0 || code === 1 || code === 2) return resolve(stdout);
      reject(new NativeCheckUnavailable(`${exe} ended with ${signal ?? `exit code ${code}`}: ${(stderr || stdout).trim().slice(0, 500)}`));
    });
  });
}

/** A diagnostic of the program; any other line not indented is one of another file, or not a diagnostic. */
const LOCATED = /^program\.ts\((\d+),(\d+)\): error TS(\d+): (.*)$/;

/** `tsc --listFiles` output split: the files of the program it read (absolute paths of files), the other lines. */
function listedFiles(output: string): { files: string[]; lines: string[] } {
  const files: string[] = [];
  const lines: string[] = [];
  for (const line of output.split(/\r?\n/)) {
    if (line !== '' && path.isAbsolute(line) && statSync(line, { throwIfNoEntry: false })?.isFile() === true) files.push(line);
    else lines.push(line);
  }
  return { files, lines };
}

/** Whether a file tsc read is one the check gave it: its own files, the build's declarations, the sandbox modules' declarations. */
function checkFileWithin(folder: string, typesRoot: string | undefined, declarations: string): (file: string) => boolean {
  const own = new Set([
    ...['lib.d.ts', 'sandbox-globals.d.ts', 'program.ts'].map((name) => real(path.join(folder, name))),
    real(declarations),
  ]);
  const modules = typesRoot === undefined ? undefined : real(path.join(typesRoot, 'node_modules')) + path.sep;
  return (file) => own.has(real(file)) || (modules !== undefined && real(file).startsWith(modules));
}

/**
 * The diagnostics of program.ts in `tsc --pretty false` output (1-based; a message's chained lines,
 * indented, follow its first). Any error elsewhere (the config, the lib, a declaration file) means the
 * check did not happen as planned: TypeScript 5 checks instead.
 */
function programDiagnostics(lines: readonly string[]): Diagnostic[] {
  const found: Diagnostic[] = [];
  let current: Diagnostic | undefined;
  for (const line of lines) {
    if (line === '') continue;
    // A message's text (a type the program wrote, `'x(1,1): error TS1: …'`) is never read as a location:
    // only the start of a line that is not indented says where an error is.
    const located = LOCATED.exec(line);
    if (located !== null) {
      const [, row, column, code, message] = located as unknown as [string, string, string, string, string];
      current = { line: Number(row), column: Number(column), code: Number(code), message };
      found.push(current);
    } else if (!/^\s/.test(line)) {
      // Not the program's: another file's error, the config's, or what is not a diagnostic.
      // Said on the host's stderr, never to the program.
      throw new NativeCheckUnavailable(`tsc reported what is not a diagnostic of the program: ${line.slice(0, 300)}`);
    } else {
      if (current === undefined) throw new NativeCheckUnavailable(`tsc printed what is not a diagnostic: ${line.slice(0, 300)}`);
      current.message += `\n${line}`;
    }
  }
  return found;
}

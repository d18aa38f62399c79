/**
 * A warm type checker for programs, run inside the check worker: an in-memory TypeScript program
 * (strict, ES2022, no DOM) of the build's `capabilities.d.ts`, the sandbox's globals and the
 * program. Each check makes a new program from the old one: the lib and the declarations are parsed
 * and bound once and handed over by identity, so a check parses only the program. What cannot be
 * kept is TypeScript's checker, made anew for each program; the lib is one file so that setting up
 * its global scope is cheap (see `loadLib`).
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ts as Ts } from 'ts-morph';
import { ts } from '../program/typescript.js';
import { BUILD_LAYOUT } from '../../core/manifest.js';
import type { Diagnostic } from '../../core/run-result.js';
import { readSandboxModuleList } from '../host/capability-modules.js';
import { prepareProgram, type PreparedProgram } from '../program/prepare-program.js';
import { SANDBOX_GLOBALS_DECLARATION } from '../sandbox-globals.js';

export interface ProgramChecker {
  /** Reads the declarations again when the build changed them; says whether it did. */
  refreshDeclarations(): boolean;
  /** Type errors of the program, in its own line/column (1-based); empty when it checks. */
  check(code: string): Diagnostic[];
}

const PROGRAM_FILE = '/program.ts';
const DECLARATIONS_FILE = '/capabilities.d.ts';
const GLOBALS_FILE = '/sandbox-globals.d.ts';
const ROOT_FILES = [GLOBALS_FILE, PROGRAM_FILE, DECLARATIONS_FILE];
/** Where the lib files are, as far as the program can tell (the folder ts-morph uses for them in memory). */
const LIB_FOLDER = '/node_modules/typescript/lib';

const COMPILER_OPTIONS: Ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  moduleDetection: ts.ModuleDetectionKind.Force,
  lib: ['lib.es2022.d.ts'],
  types: [],
  noEmit: true,
  skipLibCheck: true,
  noUncheckedIndexedAccess: true,
};

/**
 * The lib files, parsed and bound once per thread and shared by every project. ES2022 is 57 lib
 * files that declare the same interfaces again and again (Array in seven, Promise in four), and
 * each new checker merges them all into its global scope, cloning every symbol declared in more
 * than one file; with the per-file work of each new program, that was 40% of a warm check. So the
 * checker sees one file, the named lib (`lib.es2022.d.ts`) holding the texts of all the files it
 * references, in the order TypeScript takes them: the binder merges their declarations once, and
 * a checker's merge is a copy. The types are the same, and so are the diagnostics. The files
 * folded in keep their names with no text, so a program that references one (`/// <reference
 * lib>`) adds nothing, as before; the rest (`dom`, later ES versions) keep their text.
 */
interface Lib {
  texts: Map<string, string>;
  sourceFiles: Map<string, Ts.SourceFile>;
}

let sharedLib: Lib | undefined;

/** The lib files that declare SharedArrayBuffer and Atomics (lib.es2017.sharedmemory.d.ts, …). */
export const SHARED_MEMORY_LIB = /\/lib\.[a-z0-9]+\.sharedmemory\.d\.ts$/;

function loadLib(): Lib {
  // ts-morph's TypeScript has no lib folder on disk: ts-morph carries the texts of all its lib files.
  const fromTsMorph = createRequire(createRequire(import.meta.url).resolve('ts-morph'));
  const { getLibFiles } = fromTsMorph('@ts-morph/common') as { getLibFiles(): { fileName: string; text: string }[] };
  const texts = new Map(getLibFiles().map((file) => [`${LIB_FOLDER}/${file.fileName}`, file.text]));
  const entry = `${LIB_FOLDER}/${COMPILER_OPTIONS.lib?.[0] ?? ''}`;
  // A program of one empty file lists the lib files in TypeScript's order (it has no lib without a
  // file). The order depends on the references alone: that program sees nothing else of them.
  const empty = '/empty.ts';
  const references = new Map(
    [...texts].map(([fileName, text]) => [fileName, text.slice(0, text.length - withoutLibReferences(text).length)]),
  );
  references.set(empty, '');
  const referenced = ts
    .createProgram({ rootNames: [empty], options: COMPILER_OPTIONS, host: createHost(references, new Map()) })
    .getSourceFiles()
    .map((file) => file.fileName)
    .filter((fileName) => fileName !== empty);
  if (!referenced.includes(entry)) throw new Error(`TypeScript's lib files lack ${entry}`);
  // Shared memory (SharedArrayBuffer, Atomics) is deleted by the bootstrap (a shared-memory clock is
  // a Spectre-class timer), so it is not declared either: the check and the run agree.
  const combined = referenced
    .filter((fileName) => !SHARED_MEMORY_LIB.test(fileName))
    .map((fileName) => withoutLibReferences(texts.get(fileName) ?? ''))
    .join('\n');
  for (const fileName of referenced) texts.set(fileName, '');
  texts.set(entry, combined);
  return { texts, sourceFiles: new Map() };
}

/** The text without its leading `/// <reference lib="…" />` lines (the combined file has all they name). */
export function withoutLibReferences(text: string): string {
  return text.replace(/^(?:\/\/\/ *<reference +lib=[^\n]*\n)+/, '');
}

/**
 * The declarations of the build's sandbox modules (`sandbox.modules`), a `node_modules` tree on disk
 * in the build output, seen by the program as `/node_modules/…`. Files are read once per tree.
 */
export interface PackageTypes {
  /** The folder that holds `node_modules/`. */
  root: string;
  texts: Map<string, string | undefined>;
}

function packageFile(types: PackageTypes | undefined, fileName: string): string | undefined {
  if (types === undefined || !fileName.startsWith('/node_modules/') || fileName.startsWith('/node_modules/typescript/')) return undefined;
  if (types.texts.has(fileName)) return types.texts.get(fileName);
  let text: string | undefined;
  try {
    text = readFileSync(path.join(types.root, ...fileName.split('/')), 'utf8');
  } catch {
    text = undefined;
  }
  types.texts.set(fileName, text);
  return text;
}

function packageDirectoryExists(types: PackageTypes | undefined, directory: string): boolean {
  if (types === undefined || !directory.startsWith('/node_modules/')) return false;
  return statSync(path.join(types.root, ...directory.split('/')), { throwIfNoEntry: false })?.isDirectory() === true;
}

/**
 * A compiler host over texts in memory: each file is parsed once, and handed out by identity until
 * its text changes (`sourceFiles` loses its entry), so a new program takes the old one's files as
 * they are, bound.
 */
function createHost(texts: Map<string, string>, sourceFiles: Map<string, Ts.SourceFile>, lib?: Lib, types?: PackageTypes): Ts.CompilerHost {
  const directories = new Set(['/', '/node_modules', '/node_modules/typescript', LIB_FOLDER]);
  const textOf = (fileName: string): string | undefined => texts.get(fileName) ?? lib?.texts.get(fileName) ?? packageFile(types, fileName);
  // The files that exist never change (only their texts do): resolutions, and the package.json
  // lookups TypeScript makes for each lib file (they sit under node_modules), hold for every check.
  const resolutionCache = ts.createModuleResolutionCache('/', (fileName) => fileName, COMPILER_OPTIONS);
  const host: Ts.CompilerHost = {
    getSourceFile(fileName, languageVersionOrOptions) {
      const cache = lib !== undefined && !texts.has(fileName) && lib.texts.has(fileName) ? lib.sourceFiles : sourceFiles;
      let file = cache.get(fileName);
      if (file === undefined) {
        const text = textOf(fileName);
        if (text === undefined) return undefined;
        file = ts.createSourceFile(fileName, text, languageVersionOrOptions);
        cache.set(fileName, file);
      }
      return file;
    },
    getDefaultLibFileName: (compilerOptions) => `${LIB_FOLDER}/${ts.getDefaultLibFileName(compilerOptions)}`,
    writeFile: () => undefined,
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (fileName) => textOf(fileName) !== undefined,
    readFile: textOf,
    directoryExists: (directory) => directories.has(directory) || packageDirectoryExists(types, directory),
    getDirectories: () => [],
    getModuleResolutionCache: () => resolutionCache,
    resolveModuleNameLiterals: (literals, containingFile, redirectedReference, compilerOptions, containingSourceFile) =>
      literals.map((literal) => {
        const mode = ts.getModeForUsageLocation(containingSourceFile, literal, compilerOptions);
        return ts.resolveModuleName(literal.text, containingFile, compilerOptions, host, resolutionCache, redirectedReference, mode);
      }),
  };
  return host;
}

export function createProgramChecker(options: { outDir: string }): ProgramChecker {
  sharedLib ??= loadLib();
  const texts = new Map([
    [GLOBALS_FILE, SANDBOX_GLOBALS_DECLARATION],
    [PROGRAM_FILE, ''],
    [DECLARATIONS_FILE, ''],
  ]);
  let sourceFiles = new Map<string, Ts.SourceFile>();
  let host = createHost(texts, sourceFiles, sharedLib);
  const setText = (fileName: string, text: string): void => {
    texts.set(fileName, text);
    sourceFiles.delete(fileName);
  };
  let program: Ts.Program | undefined;
  const checked = createCheckedPrograms();

  const declarationsPath = path.join(options.outDir, BUILD_LAYOUT.declarationsFile);
  const modulesPath = path.join(options.outDir, BUILD_LAYOUT.sandboxModulesFile);
  let declarationsStamp = '';
  let modulesStamp = '';
  let sandboxModules: ReadonlySet<string> = new Set();

  return {
    refreshDeclarations() {
      const stamp = fileStamp(declarationsPath);
      const modules = fileStamp(modulesPath);
      if (stamp === declarationsStamp && modules === modulesStamp) return false;
      if (modules !== modulesStamp) {
        // Another set of packages: a new host, so no file or resolution of the old tree is kept.
        modulesStamp = modules;
        const loaded = readSandboxModules(options.outDir);
        sandboxModules = loaded.modules;
        sourceFiles = new Map();
        host = createHost(texts, sourceFiles, sharedLib, loaded.types);
        program = undefined;
      }
      declarationsStamp = stamp;
      setText(DECLARATIONS_FILE, stamp === 'missing' ? '' : readFileSync(declarationsPath, 'utf8'));
      checked.clear();
      return true;
    },
    check(code) {
      const known = checked.get(code);
      if (known !== undefined) return known;
      const diagnostics = checkAnew(code);
      checked.set(code, diagnostics);
      return diagnostics;
    },
  };

  function checkAnew(code: string): Diagnostic[] {
    const start = startCheck(code);
    if (!start.ok) return start.diagnostics;
    setText(PROGRAM_FILE, start.prepared.source);
    program = ts.createProgram({ rootNames: ROOT_FILES, options: COMPILER_OPTIONS, host, oldProgram: program });
    const file = program.getSourceFile(PROGRAM_FILE) as Ts.SourceFile;
    const found = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((diagnostic) => {
      const at = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return {
        line: at.line + 1,
        column: at.character + 1,
        code: diagnostic.code,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
      };
    });
    return finishCheck(start, file, sandboxModules, found);
  }
}

/** A program ready for TypeScript: its statements the sandbox refuses reported and blanked out, the rest prepared. */
export type StartedCheck =
  { ok: false; diagnostics: Diagnostic[] } | { ok: true; prepared: PreparedProgram; refusals: Diagnostic[]; unbound: Set<string> };

/**
 * The part of a check before TypeScript (shared by the TypeScript 5 checker here and the native one):
 * a statement the sandbox refuses (an import of node:fs, a require) is reported where it is, and the
 * rest of the program is checked too, with that line left out: a refusal must not hide the type errors
 * around it. Names only the refused import bound are not reported missing again.
 */
export function startCheck(code: string): StartedCheck {
  const refusals: Diagnostic[] = [];
  const unbound = new Set<string>();
  let text = code;
  let prepared = prepareProgram(text);
  while (!prepared.ok) {
    const { line = 1, column = 1, message } = prepared.error;
    refusals.push({ line, column, code: 0, message });
    const lines = text.split('\n');
    const refused = lines[line - 1];
    if (refused === undefined || refused.trim() === '' || refusals.length > 20) return { ok: false, diagnostics: refusals };
    for (const name of importedNames(refused)) unbound.add(name);
    lines[line - 1] = ' '.repeat(refused.length);
    text = lines.join('\n');
    prepared = prepareProgram(text);
  }
  return { ok: true, prepared, refusals, unbound };
}

/**
 * The part of a check after TypeScript: `found` (TypeScript's diagnostics of the prepared program
 * `file`, 1-based in its text, messages flattened) mapped back to the model's lines, without what a
 * refusal already said, with hints for globals the sandbox lacks, sorted by position.
 */
export function finishCheck(
  start: Extract<StartedCheck, { ok: true }>,
  file: Ts.SourceFile,
  sandboxModules: ReadonlySet<string>,
  found: readonly Diagnostic[],
): Diagnostic[] {
  const { prepared, unbound } = start;
  const refusals = [...start.refusals];
  const unlisted = unlistedImports(file, sandboxModules, prepared.toOriginal);
  refusals.push(...unlisted.diagnostics);
  const typeErrors = found.flatMap((diagnostic) => {
    const position = prepared.toOriginal({ line: diagnostic.line, column: diagnostic.column });
    const { message } = diagnostic;
    const missing = diagnostic.code === CANNOT_FIND_NAME ? /'([^']+)'/.exec(message)?.[1] : undefined;
    if (missing !== undefined && unbound.has(missing)) return [];
    // The refusal of an unlisted package already says what TypeScript would: it is not there.
    const module = MODULE_NOT_FOUND_CODES.has(diagnostic.code) ? /module '([^']+)'/.exec(message)?.[1] : undefined;
    if (module !== undefined && unlisted.specifiers.has(module)) return [];
    return [
      {
        ...position,
        code: diagnostic.code,
        message:
          missing !== undefined && MISSING_GLOBAL_HINTS[missing]
            ? `${message.replace(/\.?$/, '.')} ${MISSING_GLOBAL_HINTS[missing]}`
            : message,
      },
    ];
  });
  return [...refusals, ...typeErrors].sort((a, b) => a.line - b.line || a.column - b.column);
}

/** `size:mtime` of a file, or `missing`. */
function fileStamp(file: string): string {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat === undefined ? 'missing' : `${stat.mtimeMs}:${stat.size}`;
}

/** The specifiers the build bundled, and where their declarations are (none when it bundled none). */
export function readSandboxModules(outDir: string): { modules: ReadonlySet<string>; types?: PackageTypes } {
  // The sandbox's own reader of the list (cached by the file's size and mtime): the check sees what the run resolves.
  const manifest = readSandboxModuleList(outDir);
  if (manifest === undefined) return { modules: new Set() };
  const modules = new Set(Object.keys(manifest.modules));
  if (manifest.typesDir === undefined || /[/\\]|^\.\.?$/.test(manifest.typesDir)) return { modules };
  return { modules, types: { root: path.join(outDir, BUILD_LAYOUT.sandboxModulesDir, manifest.typesDir), texts: new Map() } };
}

/**
 * The program's imports of npm packages the build did not bundle: the sandbox refuses them when the
 * program runs, so the check says so too (a package's declarations may be present as another's dependency).
 */
function unlistedImports(
  file: Ts.SourceFile,
  modules: ReadonlySet<string>,
  toOriginal: (position: { line: number; column: number }) => { line: number; column: number },
): { diagnostics: Diagnostic[]; specifiers: Set<string> } {
  const found: Diagnostic[] = [];
  const specifiers = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || statement.importClause?.isTypeOnly === true) continue;
    const specifier = (statement.moduleSpecifier as Ts.StringLiteral).text;
    if (specifier.startsWith('@capabilities/') || modules.has(specifier)) continue;
    specifiers.add(specifier);
    const at = file.getLineAndCharacterOfPosition(statement.getStart(file));
    const listed = [...modules].map((name) => `"${name}"`).join(', ');
    found.push({
      ...toOriginal({ line: at.line + 1, column: at.character + 1 }),
      code: 0,
      message: `import of "${specifier}" refused: the build bundles no such npm module (${listed === '' ? 'it bundles none' : `it bundles ${listed}`}); list it in sandbox.modules in the config and rebuild the capabilities`,
    });
  }
  return { diagnostics: found, specifiers };
}

/** TypeScript's "Cannot find module 'x'" and "Could not find a declaration file for module 'x'". */
const MODULE_NOT_FOUND_CODES = new Set([2307, 7016]);

/** TypeScript's "Cannot find name 'x'". */
const CANNOT_FIND_NAME = 2304;

/** What to use instead of a global of Node or the browser that the sandbox does not have. */
const HTTP_HINT =
  "The sandbox has no network of its own: call HTTP through std's http capability (import { http } from '@capabilities/std'; await http.fetch({ url }), with the host in std.http.allowHosts in the config)";
const MISSING_GLOBAL_HINTS: Record<string, string> = {
  fetch: HTTP_HINT,
  XMLHttpRequest: HTTP_HINT,
  require: "The sandbox has no require: import capabilities (import { fs } from '@capabilities/std')",
  process: 'The sandbox has no process: its environment stays on the host; pass what the program needs through a capability',
};

/** The local names an import statement on one line binds (`import fs, { a, b as c } from '…'` → fs, a, c). */
function importedNames(line: string): string[] {
  const statement = ts.createSourceFile('line.ts', line, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS).statements[0];
  if (statement === undefined) return [];
  if (ts.isImportEqualsDeclaration(statement)) return [statement.name.text];
  if (!ts.isImportDeclaration(statement) || statement.importClause === undefined) return [];
  const { name, namedBindings } = statement.importClause;
  const names = name ? [name.text] : [];
  if (namedBindings && ts.isNamespaceImport(namedBindings)) names.push(namedBindings.name.text);
  if (namedBindings && ts.isNamedImports(namedBindings)) names.push(...namedBindings.elements.map((element) => element.name.text));
  return names;
}

/** Characters of program text the cache of checked programs holds at most (their diagnostics are small). */
const CHECKED_PROGRAMS_MAX_CHARS = 4 * 1024 * 1024;

/**
 * The answers of programs already checked against the current declarations, by their exact text: a
 * model that runs the same program again (a retry, a replayed task, an agent's routine step) does not
 * pay for a new TypeScript checker. The answer is a function of the text, the declarations, the
 * sandbox's globals and the compiler options; the last two are fixed per process, and the cache is
 * emptied whenever the declarations change. Least recently used programs go first.
 */
function createCheckedPrograms(): {
  get(code: string): Diagnostic[] | undefined;
  set(code: string, diagnostics: Diagnostic[]): void;
  clear(): void;
} {
  const entries = new Map<string, Diagnostic[]>();
  let chars = 0;
  return {
    get(code) {
      const diagnostics = entries.get(code);
      if (diagnostics !== undefined) {
        entries.delete(code);
        entries.set(code, diagnostics);
      }
      return diagnostics;
    },
    set(code, diagnostics) {
      if (code.length > CHECKED_PROGRAMS_MAX_CHARS / 8) return;
      entries.set(code, diagnostics);
      chars += code.length;
      for (const [oldest] of entries) {
        if (chars <= CHECKED_PROGRAMS_MAX_CHARS) break;
        entries.delete(oldest);
        chars -= oldest.length;
      }
    },
    clear() {
      entries.clear();
      chars = 0;
    },
  };
}

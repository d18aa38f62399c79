/**
 * The one shape every program is rewritten into, shared by the two readers of programs: the
 * TypeScript-based one of the type checker (prepare-program.ts) and the light one of runs
 * (compile-program.ts). Imports stay on top; everything else moves into
 * `export default async () => { ... }`; exports become assignments to a local; a top-level `return`
 * returns from the wrapper. Every edit keeps line numbers and (but for the one line where the
 * wrapper opens) columns. Both readers refuse the same programs with the same messages.
 */
import { builtinModules } from 'node:module';
import type { RunError } from '../../core/run-result.js';

/** The local that receives the program's default export inside the wrapper (as long as `export default`). */
export const DEFAULT_BINDING = '__asDefault';
export const DEFAULT_ASSIGNMENT = `${DEFAULT_BINDING} =`;
export const WRAPPER_PREFIX = `;export default async () => { let ${DEFAULT_BINDING};`;

export const CAPABILITY_SPECIFIER = /^@capabilities\/[a-z0-9][a-z0-9_.-]*$/;

/** An npm package (`date-fns`, `@scope/name`, `lodash-es/chunk`): the sandbox loads it when the build lists it (`sandbox.modules`). */
const PACKAGE_SPECIFIER = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(?:\/[A-Za-z0-9._~@+-]+)*$/;
const NODE_BUILTINS = new Set(builtinModules);

/**
 * Whether a program may name `specifier` in an import: a capability module, or an npm package that is
 * not one of Node's own modules (whether the build bundled it is the module loader's and the type
 * checker's answer; Node's modules are refused here, whatever the build).
 */
export function isImportableSpecifier(specifier: string): boolean {
  if (CAPABILITY_SPECIFIER.test(specifier)) return true;
  if (specifier.startsWith('@capabilities/') || !PACKAGE_SPECIFIER.test(specifier)) return false;
  return !NODE_BUILTINS.has(specifier) && !NODE_BUILTINS.has(specifier.split('/')[0] ?? '');
}

export interface Position {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

export interface ProgramRefusal {
  ok: false;
  error: RunError;
}

/** Why a program cannot run; each message says what to do instead. */
export const REFUSED = {
  importsFirst: 'imports must come before the other statements of the program; move this import to the top',
  importRequire: '`import x = require(...)` is not available in the sandbox; use `import { ... } from "@capabilities/<name>"`',
  exportEquals: '`export =` is not supported; use `export default`',
  reExport: 're-exports (`export ... from`) are not supported in programs; import the module instead',
  exportAndReturn:
    'a program either exports its result (`export default`) or returns it at top level, not both; remove the top-level `return`',
  namespace: 'TypeScript namespaces are not supported in programs; use plain functions and objects',
  import: (specifier: string) =>
    `import of "${specifier}" refused: programs may only import @capabilities/<name> modules of the build, or npm modules it bundled (sandbox.modules in the config; never Node's own modules)`,
  dynamicImport: (specifier: string | undefined) =>
    `dynamic import() of ${specifier === undefined ? 'a computed specifier' : `"${specifier}"`} refused: use a static \`import { ... } from "@capabilities/<name>"\``,
} as const;

export function refusal(message: string, at: Position): ProgramRefusal {
  return { ok: false, error: { name: 'ProgramError', code: 'PROGRAM_REFUSED', message: `${message} (line ${at.line})`, ...at } };
}

export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Replaces `code[start, end)` by `text`, padded with spaces and keeping newlines so lines stay put. */
export function overwrite(code: string, start: number, end: number, text: string): Edit {
  const original = code.slice(start, end);
  const firstBreak = original.search(/[\r\n]/);
  const firstLength = firstBreak === -1 ? original.length : firstBreak;
  const head = text.length <= firstLength ? text.padEnd(firstLength) : text;
  const rest = firstBreak === -1 ? '' : original.slice(firstBreak).replace(/[^\r\n]/g, ' ');
  return { start, end, text: head + rest };
}

/** `code[from, to)` with `edits` (inside that range, not overlapping) applied. */
export function applyEdits(code: string, from: number, to: number, edits: Edit[]): string {
  let text = '';
  let cursor = from;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    text += code.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  return text + code.slice(cursor, to);
}

/** The wrapped program: `head` (the imports), the wrapper around `body`, the hoisted default assignments. */
export function wrapProgram(head: string, body: string, appended: string[], tail = ''): string {
  return `${head}${WRAPPER_PREFIX}${body}\n${appended.join(' ')} return ${DEFAULT_BINDING};\n};\n${tail}`;
}

/** The 1-based position of `offset` in `text`. */
export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Maps a position in the wrapped program back to the unwrapped one: only the line where the wrapper
 * opens moves (by the prefix), and lines after the program's last belong to the wrapper's end.
 */
export function unwrapPosition(opening: Position, lastLine: number): (position: Position) => Position {
  return ({ line, column }) => {
    if (line > lastLine) return { line: lastLine, column: 1 };
    if (line !== opening.line || column <= opening.column) return { line, column };
    return { line, column: Math.max(opening.column, column - WRAPPER_PREFIX.length) };
  };
}

/**
 * Reads the model's program and rewrites it into one shape the runtime and the type checker share:
 * its imports stay on top, everything else moves into `export default async () => { ... }`.
 * Exports become assignments to a local, a top-level `return` returns from the wrapper. Every edit
 * keeps line numbers and (but for the one line where the wrapper opens) columns.
 */
import { ts } from 'ts-morph';
import type { RunError } from '../../core/run-result.js';

/** The local that receives the program's default export inside the wrapper (as long as `export default`). */
const DEFAULT_BINDING = '__asDefault';
const DEFAULT_ASSIGNMENT = `${DEFAULT_BINDING} =`;
export const WRAPPER_PREFIX = `;export default async () => { let ${DEFAULT_BINDING};`;

const CAPABILITY_SPECIFIER = /^@capabilities\/[a-z0-9][a-z0-9_.-]*$/;

export interface Position {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

export interface PreparedProgram {
  ok: true;
  /** `snippet`: the program returns at top level. `module`: it exports (or does neither). */
  kind: 'module' | 'snippet';
  /** The rewritten TypeScript. */
  source: string;
  /** The `@capabilities/*` modules the program imports. */
  imports: string[];
  /** Maps a position in `source` back to the model's code. */
  toOriginal(position: Position): Position;
}

export interface ProgramRefusal {
  ok: false;
  error: RunError;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

class Refusal {
  constructor(readonly message: string, readonly node: ts.Node) {}
}

/** Prepares a program for transpiling and type-checking, or says why it cannot run. */
export function prepareProgram(code: string): PreparedProgram | ProgramRefusal {
  const file = ts.createSourceFile('program.ts', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const position = (node: ts.Node): Position => {
    const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
    return { line: line + 1, column: character + 1 };
  };
  try {
    return rewrite(code, file);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const at = position(error.node);
    return {
      ok: false,
      error: { name: 'ProgramError', code: 'PROGRAM_REFUSED', message: `${error.message} (line ${at.line})`, ...at },
    };
  }
}

function rewrite(code: string, file: ts.SourceFile): PreparedProgram {
  const edits: Edit[] = [];
  const appended: string[] = [];
  const imports = new Set<string>();
  let wrapperStart = 0;
  let seenStatement = false;
  let exportNode: ts.Node | undefined;
  let returnNode: ts.Node | undefined;

  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (seenStatement) throw new Refusal('imports must come before the other statements of the program; move this import to the top', statement);
      const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
      if (statement.importClause?.isTypeOnly !== true) checkSpecifier(specifier, statement);
      if (CAPABILITY_SPECIFIER.test(specifier)) imports.add(specifier);
      wrapperStart = statement.end;
      continue;
    }
    if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
      throw new Refusal('`import x = require(...)` is not available in the sandbox; use `import { ... } from "@capabilities/<name>"`', statement);
    }
    seenStatement = true;
    const exported = rewriteExport(code, file, statement, edits, appended);
    if (exported) exportNode ??= statement;
    returnNode ??= findTopLevelReturn(statement);
  }
  findDynamicImport(file);
  if (exportNode !== undefined && returnNode !== undefined) {
    throw new Refusal('a program either exports its result (`export default`) or returns it at top level, not both; remove the top-level `return`', returnNode);
  }

  let body = '';
  let cursor = wrapperStart;
  for (const edit of edits.sort((a, b) => a.start - b.start)) {
    body += code.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  body += code.slice(cursor);
  const source = `${code.slice(0, wrapperStart)}${WRAPPER_PREFIX}${body}\n${appended.join(' ')} return ${DEFAULT_BINDING};\n};\n`;

  const opening = file.getLineAndCharacterOfPosition(wrapperStart);
  const lastLine = file.getLineAndCharacterOfPosition(code.length).line + 1;
  return {
    ok: true,
    kind: returnNode === undefined ? 'module' : 'snippet',
    source,
    imports: [...imports],
    toOriginal({ line, column }) {
      if (line > lastLine) return { line: lastLine, column: 1 };
      if (line !== opening.line + 1 || column <= opening.character + 1) return { line, column };
      return { line, column: Math.max(opening.character + 1, column - WRAPPER_PREFIX.length) };
    },
  };
}

function checkSpecifier(specifier: string, node: ts.Node): void {
  if (CAPABILITY_SPECIFIER.test(specifier)) return;
  throw new Refusal(`import of "${specifier}" refused: programs may only import @capabilities/<name> modules of the build`, node);
}

/** Rewrites one exporting statement into local code; returns whether the statement exported. */
function rewriteExport(code: string, file: ts.SourceFile, statement: ts.Statement, edits: Edit[], appended: string[]): boolean {
  if (ts.isExportAssignment(statement)) {
    if (statement.isExportEquals === true) throw new Refusal('`export =` is not supported; use `export default`', statement);
    edits.push(overwrite(code, statement.getStart(file), statement.expression.getStart(file), DEFAULT_ASSIGNMENT));
    return true;
  }
  if (ts.isExportDeclaration(statement)) {
    if (statement.moduleSpecifier !== undefined) throw new Refusal('re-exports (`export ... from`) are not supported in programs; import the module instead', statement);
    const clause = statement.exportClause;
    if (clause !== undefined && ts.isNamedExports(clause)) {
      for (const element of clause.elements) {
        if (element.name.text === 'default' && !statement.isTypeOnly) appended.push(`${DEFAULT_BINDING} = ${(element.propertyName ?? element.name).getText(file)};`);
      }
    }
    edits.push(overwrite(code, statement.getStart(file), statement.end, ''));
    return true;
  }
  if (!ts.canHaveModifiers(statement)) return false;
  const modifiers = ts.getModifiers(statement) ?? [];
  const exportModifier = modifiers.find((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
  if (exportModifier === undefined) return false;
  const defaultModifier = modifiers.find((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
  if (defaultModifier === undefined) {
    edits.push(overwrite(code, exportModifier.getStart(file), exportModifier.end, ''));
    return true;
  }
  const name = (statement as ts.Statement & { name?: ts.Identifier }).name;
  if (name !== undefined) {
    edits.push(overwrite(code, exportModifier.getStart(file), defaultModifier.end, ''));
    appended.push(`${DEFAULT_BINDING} = ${name.text};`);
  } else {
    edits.push(overwrite(code, exportModifier.getStart(file), defaultModifier.end, DEFAULT_ASSIGNMENT));
  }
  return true;
}

/** Replaces `code[start, end)` by `text`, padded with spaces and keeping newlines so lines stay put. */
function overwrite(code: string, start: number, end: number, text: string): Edit {
  const original = code.slice(start, end);
  const firstBreak = original.search(/[\r\n]/);
  const firstLength = firstBreak === -1 ? original.length : firstBreak;
  const head = text.length <= firstLength ? text.padEnd(firstLength) : text;
  const rest = firstBreak === -1 ? '' : original.slice(firstBreak).replace(/[^\r\n]/g, ' ');
  return { start, end, text: head + rest };
}

function findTopLevelReturn(node: ts.Node): ts.Node | undefined {
  if (ts.isReturnStatement(node)) return node;
  if (ts.isFunctionLike(node) || ts.isClassLike(node)) return undefined;
  return ts.forEachChild(node, findTopLevelReturn);
}

function findDynamicImport(node: ts.Node): void {
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const argument = node.arguments[0];
    const specifier = argument !== undefined && ts.isStringLiteralLike(argument) ? `"${argument.text}"` : 'a computed specifier';
    throw new Refusal(`dynamic import() of ${specifier} refused: use a static \`import { ... } from "@capabilities/<name>"\``, node);
  }
  ts.forEachChild(node, findDynamicImport);
}

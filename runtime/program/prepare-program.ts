/**
 * Reads the model's program with TypeScript's parser and rewrites it into the shape of
 * program-shape.ts, keeping its types: this is what the type checker checks. Runs take the light
 * path of compile-program.ts instead; program-readers.test.ts holds the two to the same answers.
 */
import type { ts as Ts } from 'ts-morph';
import { ts } from './typescript.js';
import {
  applyEdits,
  CAPABILITY_SPECIFIER,
  isImportableSpecifier,
  DEFAULT_ASSIGNMENT,
  DEFAULT_BINDING,
  overwrite,
  refusal,
  REFUSED,
  unwrapPosition,
  wrapProgram,
  type Edit,
  type Position,
  type ProgramRefusal,
} from './program-shape.js';

export { WRAPPER_PREFIX, type Position, type ProgramRefusal } from './program-shape.js';

export interface PreparedProgram {
  ok: true;
  /** `snippet`: the program returns at top level. `module`: it exports (or does neither). */
  kind: 'module' | 'snippet';
  /** The rewritten TypeScript. */
  source: string;
  /** The `@capabilities/*` modules the program imports (`import type` aside: it loads nothing). */
  imports: string[];
  /** Maps a position in `source` back to the model's code. */
  toOriginal(position: Position): Position;
}

class Refusal {
  constructor(
    readonly message: string,
    readonly node: Ts.Node,
  ) {}
}

/** Prepares a program for type-checking, or says why it cannot run. */
export function prepareProgram(code: string): PreparedProgram | ProgramRefusal {
  const file = ts.createSourceFile('program.ts', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  try {
    return rewrite(code, file);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const { line, character } = file.getLineAndCharacterOfPosition(error.node.getStart(file));
    return refusal(error.message, { line: line + 1, column: character + 1 });
  }
}

function rewrite(code: string, file: Ts.SourceFile): PreparedProgram {
  const edits: Edit[] = [];
  const appended: string[] = [];
  const movedTypeImports: string[] = [];
  const typeOnly: Ts.Statement[] = [];
  const imports = new Set<string>();
  let wrapperStart = 0;
  let seenStatement = false;
  let exportNode: Ts.Node | undefined;
  let returnNode: Ts.Node | undefined;

  findNamespace(file);
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly === true) {
      // Loads nothing, so it may stand anywhere; TypeScript wants it at the top level, after the wrapper.
      if (seenStatement) {
        movedTypeImports.push(statement.getText(file));
        edits.push(overwrite(code, statement.getStart(file), statement.end, ''));
      } else {
        wrapperStart = statement.end;
      }
      continue;
    }
    if (ts.isImportDeclaration(statement)) {
      if (seenStatement) throw new Refusal(REFUSED.importsFirst, statement);
      const specifier = (statement.moduleSpecifier as Ts.StringLiteral).text;
      if (!isImportableSpecifier(specifier)) throw new Refusal(REFUSED.import(specifier), statement);
      if (CAPABILITY_SPECIFIER.test(specifier)) imports.add(specifier);
      wrapperStart = statement.end;
      continue;
    }
    if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
      throw new Refusal(REFUSED.importRequire, statement);
    }
    // Types vanish before the program runs: they neither count as statements nor as exports.
    if (isTypeOnly(statement)) {
      typeOnly.push(statement);
      continue;
    }
    seenStatement = true;
    const exported = rewriteExport(code, file, statement, edits, appended);
    if (exported) exportNode ??= statement;
    returnNode ??= findTopLevelReturn(statement);
  }
  findDynamicImport(file);
  if (exportNode !== undefined && returnNode !== undefined) throw new Refusal(REFUSED.exportAndReturn, returnNode);

  // Inside the wrapper, a type can be declared but not exported.
  for (const statement of typeOnly) {
    if (statement.getStart(file) >= wrapperStart) unexport(code, file, statement, edits);
  }
  const head = applyEdits(code, 0, wrapperStart, []);
  const body = applyEdits(code, wrapperStart, code.length, edits);
  const opening = file.getLineAndCharacterOfPosition(wrapperStart);
  const lastLine = file.getLineAndCharacterOfPosition(code.length).line + 1;
  return {
    ok: true,
    kind: returnNode === undefined ? 'module' : 'snippet',
    source: wrapProgram(head, body, appended, movedTypeImports.map((text) => `${text}\n`).join('')),
    imports: [...imports],
    toOriginal: unwrapPosition({ line: opening.line + 1, column: opening.character + 1 }, lastLine),
  };
}

/** Statements that the TypeScript-to-JavaScript step removes entirely. */
function isTypeOnly(statement: Ts.Statement): boolean {
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEmptyStatement(statement)) return true;
  if (ts.isExportDeclaration(statement)) return statement.isTypeOnly;
  if (!ts.canHaveModifiers(statement)) return false;
  return (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.DeclareKeyword);
}

/** Rewrites one exporting statement into local code; returns whether the statement exported. */
function rewriteExport(code: string, file: Ts.SourceFile, statement: Ts.Statement, edits: Edit[], appended: string[]): boolean {
  if (ts.isExportAssignment(statement)) {
    if (statement.isExportEquals === true) throw new Refusal(REFUSED.exportEquals, statement);
    edits.push(overwrite(code, statement.getStart(file), statement.expression.getStart(file), DEFAULT_ASSIGNMENT));
    return true;
  }
  if (ts.isExportDeclaration(statement)) {
    if (statement.moduleSpecifier !== undefined) throw new Refusal(REFUSED.reExport, statement);
    const clause = statement.exportClause;
    if (clause !== undefined && ts.isNamedExports(clause)) {
      for (const element of clause.elements) {
        if (element.name.text === 'default' && !element.isTypeOnly)
          appended.push(`${DEFAULT_BINDING} = ${(element.propertyName ?? element.name).getText(file)};`);
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
  const name = (statement as Ts.Statement & { name?: Ts.Identifier }).name;
  if (name !== undefined) {
    edits.push(overwrite(code, exportModifier.getStart(file), defaultModifier.end, ''));
    appended.push(`${DEFAULT_BINDING} = ${name.text};`);
  } else {
    edits.push(overwrite(code, exportModifier.getStart(file), defaultModifier.end, DEFAULT_ASSIGNMENT));
  }
  return true;
}

function unexport(code: string, file: Ts.SourceFile, statement: Ts.Statement, edits: Edit[]): void {
  if (ts.isExportDeclaration(statement)) {
    edits.push(overwrite(code, statement.getStart(file), statement.end, ''));
    return;
  }
  const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
  const exportModifier = modifiers.find((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
  if (exportModifier === undefined) return;
  const last = modifiers.find((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword) ?? exportModifier;
  edits.push(overwrite(code, exportModifier.getStart(file), last.end, ''));
}

function findTopLevelReturn(node: Ts.Node): Ts.Node | undefined {
  if (ts.isReturnStatement(node)) return node;
  if (ts.isFunctionLike(node) || ts.isClassLike(node)) return undefined;
  return ts.forEachChild(node, findTopLevelReturn);
}

function findDynamicImport(node: Ts.Node): void {
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const argument = node.arguments[0];
    throw new Refusal(REFUSED.dynamicImport(argument !== undefined && ts.isStringLiteralLike(argument) ? argument.text : undefined), node);
  }
  ts.forEachChild(node, findDynamicImport);
}

/**
 * Namespaces, which the light path cannot compile: all but `declare`d ones, `declare module "x"`,
 * `declare global` and the inner names of a dotted one (`namespace A.B`).
 */
function findNamespace(node: Ts.Node): void {
  const dottedPart = node.parent !== undefined && ts.isModuleDeclaration(node.parent) && node.parent.body === node;
  if (ts.isModuleDeclaration(node) && ts.isIdentifier(node.name) && !dottedPart && (node.flags & ts.NodeFlags.GlobalAugmentation) === 0) {
    const declared = (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.DeclareKeyword);
    if (!declared) throw new Refusal(REFUSED.namespace, node);
  }
  ts.forEachChild(node, findNamespace);
}

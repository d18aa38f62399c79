/**
 * The light reader of programs: rewrites the JavaScript that sucrase made of the model's TypeScript
 * (same lines, types gone, every import kept) into the shape of program-shape.ts, reading it with
 * acorn. It also drops the imported names the program never uses as values — those name types,
 * which the capability modules do not export at run time — as TypeScript's own emit would.
 */
import type {
  AnyNode,
  ExportDefaultDeclaration,
  ExportNamedDeclaration,
  ImportDeclaration,
  Program,
  Statement,
  ModuleDeclaration,
} from 'acorn';
import {
  applyEdits,
  CAPABILITY_SPECIFIER,
  isImportableSpecifier,
  DEFAULT_ASSIGNMENT,
  DEFAULT_BINDING,
  overwrite,
  positionAt,
  REFUSED,
  unwrapPosition,
  wrapProgram,
  type Edit,
  type Position,
} from './program-shape.js';

export interface ShapedModule {
  ok: true;
  kind: 'module' | 'snippet';
  js: string;
  imports: string[];
  /** Maps a position in `js` to the same position in the JavaScript it was made of. */
  toUnwrapped(position: Position): Position;
}

/** A refused program: the reason, and where in the JavaScript it was read from. */
export interface ShapeRefusal {
  ok: false;
  message: string;
  offset: number;
}

/**
 * What only the TypeScript knows: sucrase turns `import x = require(...)` into `const x = require(...)`
 * and `export = x` into `module.exports = x`, which a program may also write itself (and then simply fail).
 */
export type OriginalStartsWith = (offset: number, pattern: RegExp) => boolean;

class Refusal {
  constructor(
    readonly message: string,
    readonly offset: number,
  ) {}
}

type TopLevel = Statement | ModuleDeclaration;

export function shapeModule(js: string, tree: Program, originalStartsWith: OriginalStartsWith): ShapedModule | ShapeRefusal {
  try {
    return shape(js, tree, originalStartsWith);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { ok: false, message: error.message, offset: error.offset };
  }
}

function shape(js: string, tree: Program, originalStartsWith: OriginalStartsWith): ShapedModule {
  const importEdits: Edit[] = [];
  const edits: Edit[] = [];
  const appended: string[] = [];
  const importDeclarations: ImportDeclaration[] = [];
  const imports = new Set<string>();
  let wrapperStart = 0;
  let seenStatement = false;
  let exportNode: TopLevel | undefined;

  for (const statement of tree.body) {
    if (statement.type === 'ImportDeclaration') {
      if (seenStatement) throw new Refusal(REFUSED.importsFirst, statement.start);
      const specifier = String(statement.source.value);
      if (!isImportableSpecifier(specifier)) throw new Refusal(REFUSED.import(specifier), statement.start);
      if (CAPABILITY_SPECIFIER.test(specifier)) imports.add(specifier);
      importDeclarations.push(statement);
      wrapperStart = statement.end;
      continue;
    }
    if (isRequireDeclaration(statement) && originalStartsWith(statement.start, /^(export\s+)?import\b/))
      throw new Refusal(REFUSED.importRequire, statement.start);
    // What is left of removed types (`export type { A } from './a'` leaves its `;`).
    if (statement.type === 'EmptyStatement') continue;
    seenStatement = true;
    if (isModuleExportsAssignment(statement) && originalStartsWith(statement.start, /^export\b/))
      throw new Refusal(REFUSED.exportEquals, statement.start);
    if (rewriteExport(js, statement, edits, appended)) exportNode ??= statement;
  }
  const found = scan(tree);
  if (found.dynamicImport !== undefined)
    throw new Refusal(REFUSED.dynamicImport(found.dynamicImport.specifier), found.dynamicImport.offset);
  if (exportNode !== undefined && found.returnOffset !== undefined) throw new Refusal(REFUSED.exportAndReturn, found.returnOffset);
  for (const declaration of importDeclarations) {
    const edit = elideUnused(js, declaration, found.names);
    if (edit !== undefined) importEdits.push(edit);
  }

  const opening = positionAt(js, wrapperStart);
  const lastLine = positionAt(js, js.length).line;
  return {
    ok: true,
    kind: found.returnOffset === undefined ? 'module' : 'snippet',
    js: wrapProgram(applyEdits(js, 0, wrapperStart, importEdits), applyEdits(js, wrapperStart, js.length, edits), appended),
    imports: [...imports],
    toUnwrapped: unwrapPosition(opening, lastLine),
  };
}

/** Rewrites one exporting statement into local code; returns whether the statement exported. */
function rewriteExport(js: string, statement: TopLevel, edits: Edit[], appended: string[]): boolean {
  switch (statement.type) {
    case 'ExportAllDeclaration':
      throw new Refusal(REFUSED.reExport, statement.start);
    case 'ExportDefaultDeclaration':
      rewriteExportDefault(js, statement, edits, appended);
      return true;
    case 'ExportNamedDeclaration':
      rewriteExportNamed(js, statement, edits, appended);
      return true;
    default:
      return false;
  }
}

function rewriteExportDefault(js: string, statement: ExportDefaultDeclaration, edits: Edit[], appended: string[]): void {
  const declaration = statement.declaration;
  const named = (declaration.type === 'FunctionDeclaration' || declaration.type === 'ClassDeclaration') && declaration.id != null;
  if (named) {
    // A declaration stays one (hoisted), under its own name.
    edits.push(overwrite(js, statement.start, declaration.start, ''));
    appended.push(`${DEFAULT_BINDING} = ${declaration.id.name};`);
  } else {
    edits.push(overwrite(js, statement.start, declaration.start, DEFAULT_ASSIGNMENT));
  }
}

function rewriteExportNamed(js: string, statement: ExportNamedDeclaration, edits: Edit[], appended: string[]): void {
  if (statement.source != null) throw new Refusal(REFUSED.reExport, statement.start);
  if (statement.declaration != null) {
    edits.push(overwrite(js, statement.start, statement.start + 'export'.length, ''));
    return;
  }
  for (const specifier of statement.specifiers) {
    if (nameOf(specifier.exported) === 'default') appended.push(`${DEFAULT_BINDING} = ${nameOf(specifier.local)};`);
  }
  edits.push(overwrite(js, statement.start, statement.end, ''));
}

function nameOf(node: { type: 'Identifier'; name: string } | { type: 'Literal'; value?: unknown }): string {
  return node.type === 'Identifier' ? node.name : String(node.value);
}

function isRequireDeclaration(statement: TopLevel): boolean {
  const declaration = statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement;
  if (declaration?.type !== 'VariableDeclaration') return false;
  const init = declaration.declarations[0]?.init;
  return init?.type === 'CallExpression' && init.callee.type === 'Identifier' && init.callee.name === 'require';
}

function isModuleExportsAssignment(statement: TopLevel): boolean {
  if (statement.type !== 'ExpressionStatement' || statement.expression.type !== 'AssignmentExpression') return false;
  const target = statement.expression.left;
  return (
    target.type === 'MemberExpression' &&
    target.object.type === 'Identifier' &&
    target.object.name === 'module' &&
    target.property.type === 'Identifier' &&
    target.property.name === 'exports'
  );
}

/**
 * Keeps an import's names that the program uses as values (its types are gone); drops the declaration
 * when none is used, as TypeScript does. Over-keeping is possible only when a name is shadowed.
 */
function elideUnused(js: string, declaration: ImportDeclaration, used: Set<string>): Edit | undefined {
  const specifiers = declaration.specifiers;
  const kept = specifiers.filter((specifier) => used.has(specifier.local.name));
  if (kept.length === specifiers.length) return undefined;
  if (kept.length === 0) return overwrite(js, declaration.start, declaration.end, '');
  const text = (node: AnyNode): string => js.slice(node.start, node.end);
  const named = kept.filter((specifier) => specifier.type === 'ImportSpecifier');
  const clauses = [
    ...kept.filter((specifier) => specifier.type !== 'ImportSpecifier').map(text),
    ...(named.length > 0 ? [`{ ${named.map(text).join(', ')} }`] : []),
  ];
  return overwrite(
    js,
    declaration.start,
    declaration.end,
    `import ${clauses.join(', ')} from ${js.slice(declaration.source.start, declaration.end)}`,
  );
}

interface Scan {
  /** Names read as values anywhere (properties and labels aside). */
  names: Set<string>;
  /** The first `return` outside any function. */
  returnOffset: number | undefined;
  /** The first `import(...)`. */
  dynamicImport: { offset: number; specifier: string | undefined } | undefined;
}

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ClassDeclaration', 'ClassExpression']);
const SKIPPED_KEYS = new Set(['type', 'start', 'end', 'loc', 'range']);

function scan(tree: Program): Scan {
  const result: Scan = { names: new Set(), returnOffset: undefined, dynamicImport: undefined };
  const visit = (node: AnyNode, inFunction: boolean): void => {
    switch (node.type) {
      case 'ImportDeclaration':
        return;
      case 'Identifier':
        result.names.add(node.name);
        return;
      case 'ReturnStatement':
        if (!inFunction && (result.returnOffset === undefined || node.start < result.returnOffset)) result.returnOffset = node.start;
        break;
      case 'ImportExpression':
        if (result.dynamicImport === undefined || node.start < result.dynamicImport.offset) {
          const source = node.source;
          result.dynamicImport = {
            offset: node.start,
            specifier: source.type === 'Literal' && typeof source.value === 'string' ? source.value : undefined,
          };
        }
        break;
      case 'MemberExpression':
        visit(node.object, inFunction);
        if (node.computed) visit(node.property, inFunction);
        return;
      case 'Property':
      case 'PropertyDefinition':
      case 'MethodDefinition':
        if (node.computed) visit(node.key, inFunction);
        if (node.value != null) visit(node.value, inFunction);
        return;
      case 'LabeledStatement':
        visit(node.body, inFunction);
        return;
      case 'BreakStatement':
      case 'ContinueStatement':
      case 'MetaProperty':
        return;
      default:
        break;
    }
    const nested = inFunction || FUNCTIONS.has(node.type);
    for (const key in node) {
      if (SKIPPED_KEYS.has(key)) continue;
      const value = (node as unknown as Record<string, unknown>)[key];
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) visit(item, nested);
      } else if (isNode(value)) {
        visit(value, nested);
      }
    }
  };
  visit(tree, false);
  return result;
}

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

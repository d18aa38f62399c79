/**
 * Reads the one form a saved program takes — `export default async function name(input: T): Promise<R>`
 * (or with no parameter) — and what it imports from `@capabilities/*`. TypeScript's own parser reads
 * it (loaded when a program is saved, not when the library is imported); anything else is refused
 * with the line it is on and the form to use instead.
 */
import type { ts as Ts } from 'ts-morph';

/** The form every message shows. */
export const SAVED_FORM = 'export default async function name(input: { ... }): Promise<Result>';

export interface ProgramSignature {
  /** The exported function's own name. */
  functionName: string;
  /** 1-based line of the `export default`. */
  line: number;
  /** The parameter, when the function takes one: its name and its type as written. */
  parameter?: { name: string; typeText: string };
  /** `R` of the declared `Promise<R>`, as written. */
  resultTypeText: string;
  /** Where `export default` stands (offsets into the source), blanked in the form that runs. */
  exportKeywords: { start: number; end: number };
  /** What the program calls: `<module>.<function>` for each named import, `<module>.*` for a namespace import. */
  calls: string[];
}

export class SavedProgramError extends Error {
  override readonly name = 'SavedProgramError';
}

type Ts = typeof Ts;

/** Reads the program's signature, or throws a {@link SavedProgramError} naming the line and what to change. */
export async function readProgramSignature(code: string, file = 'program.ts'): Promise<ProgramSignature> {
  const { ts } = await import('ts-morph');
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const lineOf = (node: Ts.Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const refuse = (node: Ts.Node | undefined, what: string): never => {
    const where = node === undefined ? '' : ` (${file}, line ${lineOf(node)})`;
    throw new SavedProgramError(`${what}${where}; a saved program has the form \`${SAVED_FORM}\``);
  };
  const defaults = source.statements.filter((statement) => isDefaultExport(ts, statement));
  if (defaults.length === 0) refuse(undefined, `${file} has no \`export default async function\``);
  const [statement] = defaults;
  if (defaults.length > 1) refuse(defaults[1], 'a second `export default`');
  if (statement === undefined || !ts.isFunctionDeclaration(statement)) {
    return refuse(statement, 'the default export is not a function declaration');
  }
  const fn = statement;
  if (fn.name === undefined) refuse(fn, 'the exported function has no name');
  if (!fn.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.AsyncKeyword)) refuse(fn, 'the exported function is not `async`');
  if (fn.asteriskToken) refuse(fn, 'the exported function is a generator');
  if (fn.typeParameters && fn.typeParameters.length > 0) refuse(fn.typeParameters[0], 'the exported function is generic');
  if (fn.parameters.length > 1) refuse(fn.parameters[1], 'the exported function takes more than one parameter (put them in one object)');
  const [param] = fn.parameters;
  if (param !== undefined) {
    if (param.dotDotDotToken) refuse(param, 'the parameter is a rest parameter');
    if (param.type === undefined) refuse(param, 'the parameter has no type annotation');
    if (param.questionToken || param.initializer) refuse(param, 'the parameter is optional (make its properties optional instead)');
  }
  const result = fn.type;
  if (result === undefined) return refuse(fn, 'the exported function declares no result type');
  if (!ts.isTypeReferenceNode(result) || result.typeName.getText(source) !== 'Promise' || result.typeArguments?.length !== 1) {
    return refuse(result, `the result type \`${result.getText(source)}\` is not \`Promise<...>\``);
  }
  const modifiers = fn.modifiers ?? [];
  const exportKeyword = modifiers.find((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
  const defaultKeyword = modifiers.find((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
  return {
    functionName: fn.name?.text ?? '',
    line: lineOf(fn),
    ...(param?.type ? { parameter: { name: param.name.getText(source), typeText: param.type.getText(source) } } : {}),
    resultTypeText: result.typeArguments[0]?.getText(source) ?? 'unknown',
    exportKeywords: { start: exportKeyword?.getStart(source) ?? 0, end: defaultKeyword?.getEnd() ?? 0 },
    calls: importedCalls(ts, source),
  };
}

function isDefaultExport(ts: Ts, statement: Ts.Statement): boolean {
  if (ts.isExportAssignment(statement)) return !statement.isExportEquals;
  if (ts.isExportDeclaration(statement)) {
    const clause = statement.exportClause;
    return clause !== undefined && ts.isNamedExports(clause) && clause.elements.some((element) => element.name.text === 'default');
  }
  const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
  return modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
}

/** `<module>.<function>` of every named import of `@capabilities/<module>`, `<module>.*` of a namespace import. */
function importedCalls(ts: Ts, source: Ts.SourceFile): string[] {
  const calls = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    if (!specifier.startsWith('@capabilities/')) continue;
    const module = specifier.slice('@capabilities/'.length);
    const clause = statement.importClause;
    if (clause === undefined || clause.isTypeOnly) continue;
    const bindings = clause.namedBindings;
    if (clause.name !== undefined || (bindings !== undefined && ts.isNamespaceImport(bindings))) calls.add(`${module}.*`);
    if (bindings !== undefined && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        if (!element.isTypeOnly) calls.add(`${module}.${(element.propertyName ?? element.name).getText(source)}`);
      }
    }
  }
  return [...calls].sort();
}

/**
 * The form that runs a call of the saved program: the program as saved with its `export default`
 * blanked (lines and columns stay where they were, so errors point into the saved source), and one
 * line appended that calls the function with `args` and exports what it resolves to.
 */
export function callingForm(
  code: string,
  signature: Pick<ProgramSignature, 'functionName' | 'exportKeywords' | 'parameter'>,
  args: unknown,
): string {
  const { start, end } = signature.exportKeywords;
  const blanked = code.slice(0, start) + ' '.repeat(end - start) + code.slice(end);
  const input = signature.parameter === undefined ? '' : `JSON.parse(${JSON.stringify(JSON.stringify(args))})`;
  return `${blanked}\nexport default await ${signature.functionName}(${input});\n`;
}

import type { Node } from 'ts-morph';
import { CompileError, type JsonSchema } from '../../core/index.js';
import { createTypeProject } from '../sdk/type-project.js';
import { schemaOfType } from '../sdk/type-to-schema.js';

/**
 * Whether a function's `returns` is the seed form `{} as Trip[]`: at run time an empty object, whose
 * type lives only in the TypeScript source.
 */
export function isTypeOnlyReturns(returns: unknown): boolean {
  return (
    typeof returns === 'object' &&
    returns !== null &&
    Object.getPrototypeOf(returns) === Object.prototype &&
    Object.keys(returns).length === 0
  );
}

/**
 * The result schemas a `defineTool` module declares in TypeScript, by function key: each `returns: {}
 * as T` inside the export `exportName` (`'default'` for `export default`), as the schema of `T`
 * (named types as `$defs`, so the declarations keep `interface Trip`). Reads the file with ts-morph,
 * resolving its imports as the file's own TypeScript does.
 *
 * @throws CompileError when a declared type is not JSON data (naming the function and why)
 */
export async function typeScriptReturns(file: string, exportName: string, where: string): Promise<Map<string, JsonSchema>> {
  const { project, morph } = await createTypeProject();
  const { SyntaxKind } = morph;
  const source = project.addSourceFileAtPath(file);
  const root: Node | undefined =
    exportName === 'default'
      ? source.getExportAssignment((assignment) => !assignment.isExportEquals())?.getExpression()
      : source.getVariableDeclaration(exportName);
  const schemas = new Map<string, JsonSchema>();
  for (const assignment of root?.getDescendantsOfKind(SyntaxKind.PropertyAssignment) ?? []) {
    if (assignment.getName() !== 'returns') continue;
    const cast = assignment.getInitializer()?.asKind(SyntaxKind.AsExpression);
    const literal = cast?.getExpression().asKind(SyntaxKind.ObjectLiteralExpression);
    if (cast === undefined || literal === undefined || literal.getProperties().length > 0) continue;
    const key = functionKeyOf(assignment.getParent());
    if (key === undefined) continue;
    const derived = schemaOfType(cast.getType(), cast);
    if (derived.unsupported !== undefined) {
      throw new CompileError(
        'INVALID_TOOL_DEFINITION',
        `${where}.${key}.returns: the type ${cast.getTypeNodeOrThrow().getText()} is not JSON data: ${derived.unsupported}`,
      );
    }
    schemas.set(key, derived.schema);
  }
  return schemas;
}

/** The key of the function whose definition is `definition` (`trips: { … }` or `trips: defineFunction({ … })`). */
function functionKeyOf(definition: Node): string | undefined {
  let holder = definition.getParent();
  if (holder?.getKindName() === 'CallExpression') holder = holder.getParent();
  if (holder?.getKindName() !== 'PropertyAssignment') return undefined;
  const name = holder.getSymbol()?.getName();
  return name === undefined ? undefined : name;
}

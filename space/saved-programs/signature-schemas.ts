/**
 * The JSON Schemas of a saved program's parameter and result, from its own TypeScript types, seen
 * with the space's built declarations (so `Promise<Forecast>` of an imported capability type
 * resolves). The derivation itself is the SDK source's `schemaOfType` (one TS type → JSON Schema
 * for the whole project); this file only finds the types and checks the schema is an object's.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BUILD_LAYOUT, type JsonSchema } from '../../core/index.js';
import { schemaOfType } from '../../sources/index.js';
import { SAVED_FORM, SavedProgramError, type ProgramSignature } from './program-signature.js';

export interface SignatureSchemas {
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

/** An input schema for a function without a parameter: it takes `{}` and nothing else. */
const NO_INPUT: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/** Derives both schemas, or throws a {@link SavedProgramError} saying which type is not JSON data and why. */
export async function signatureSchemas(
  code: string,
  signature: ProgramSignature,
  outDir: string,
  file = 'program.ts',
): Promise<SignatureSchemas> {
  const { Project, ts } = await import('ts-morph');
  const project = new Project({
    compilerOptions: {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    },
    skipAddingFilesFromTsConfig: true,
  });
  const declarations = path.join(outDir, BUILD_LAYOUT.declarationsFile);
  if (existsSync(declarations)) project.addSourceFileAtPath(declarations);
  const source = project.createSourceFile(path.join(outDir, '.saved-program-signature.ts'), code, { overwrite: true });
  const fn = source.getFunctions().find((declaration) => declaration.isDefaultExport());
  if (fn === undefined)
    throw new SavedProgramError(`${file} has no \`export default async function\`; a saved program has the form \`${SAVED_FORM}\``);
  const at = `${file}, line ${signature.line}`;
  const parameter = fn.getParameters()[0];
  let inputSchema = NO_INPUT;
  if (parameter !== undefined) {
    const derived = schemaOfType(parameter.getType(), fn);
    if (derived.unsupported !== undefined) {
      throw new SavedProgramError(
        `the parameter type \`${signature.parameter?.typeText ?? '?'}\` is not JSON data: ${derived.unsupported} (${at})`,
      );
    }
    inputSchema = objectSchema(derived.schema);
    if (inputSchema.type !== 'object') {
      throw new SavedProgramError(
        `the parameter type \`${signature.parameter?.typeText ?? '?'}\` is not an object type (${at}); take one object, e.g. \`input: { week: string }\``,
      );
    }
  }
  const resultNode = fn.getReturnTypeNode();
  const resultType = resultNode?.getType().getTypeArguments()[0] ?? fn.getReturnType().getTypeArguments()[0];
  if (resultType === undefined)
    throw new SavedProgramError(`the result type is not \`Promise<...>\` (${at}); a saved program has the form \`${SAVED_FORM}\``);
  const output = schemaOfType(resultType, fn);
  if (output.unsupported !== undefined) {
    throw new SavedProgramError(`the result type \`${signature.resultTypeText}\` is not JSON data: ${output.unsupported} (${at})`);
  }
  return { inputSchema, outputSchema: output.schema };
}

/** A schema whose top is a `$ref` into its own `$defs` (a named parameter type) with that definition inlined at the top. */
function objectSchema(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  const defs = schema.$defs as Record<string, JsonSchema> | undefined;
  if (typeof ref !== 'string' || defs === undefined || !ref.startsWith('#/$defs/')) return schema;
  const target = defs[decodeURIComponent(ref.slice('#/$defs/'.length))];
  if (target === undefined) return schema;
  const { $ref: _ref, ...rest } = schema;
  return { ...rest, ...target, $defs: defs };
}

import type { Node, ParameterDeclaration, Signature, Symbol as MorphSymbol, Type } from 'ts-morph';
import type { SdkConfig } from '../../config/index.js';
import { isJsonSchemaObject, type JsonSchema, type RawFunction } from '../../core/index.js';
import { matchesAny, POSITIONAL_KEYWORD } from './sdk-paths.js';
import { schemaOfMembers, schemaOfType, symbolDoc } from './type-to-schema.js';

/** The keys of an HTTP response envelope (Octokit's `OctokitResponse<T>`), whose `data` is the answer. */
export const ENVELOPE_KEYS = ['data', 'status', 'headers', 'url'] as const;

/**
 * One SDK function as a tool: its parameters (one object parameter is the arguments object itself;
 * otherwise the arguments object names each parameter) and its result (a promise awaited, an HTTP
 * response envelope unwrapped to its `data`), or why it cannot be one.
 */
export function deriveFunction(
  candidate: { dotted: string; symbol: MorphSymbol; signature: Signature },
  node: Node,
  sdk: SdkConfig,
): { fn: RawFunction } | { reason: string } {
  const { dotted, signature } = candidate;
  const input = inputSchemaOf(signature, node, sdk);
  if ('reason' in input) return input;
  let result = awaited(signature.getReturnType());
  if (sdk.unwrapResponses !== false) result = unwrapEnvelope(result, node) ?? result;
  const output = schemaOfType(result, node);
  if (output.unsupported !== undefined) return { reason: `its result is not JSON data: ${output.unsupported}` };
  const description = docOf(signature, candidate.symbol, node);
  const approval = Array.isArray(sdk.requireApproval) && matchesAny(dotted, sdk.requireApproval);
  return {
    fn: {
      toolName: dotted,
      ...(description === undefined ? {} : { description }),
      inputSchema: input.schema,
      outputSchema: output.schema,
      resultKind: 'value',
      ...(approval ? { requiresApproval: true } : {}),
    },
  };
}

function inputSchemaOf(signature: Signature, node: Node, sdk: SdkConfig): { schema: JsonSchema } | { reason: string } {
  const parameters = signature.getParameters().map((symbol) => {
    const declaration = symbol.getDeclarations()[0] as ParameterDeclaration | undefined;
    const rest = declaration?.getKindName() === 'Parameter' && declaration.isRestParameter();
    const optional = declaration?.getKindName() === 'Parameter' ? declaration.isOptional() : symbol.isOptional();
    return { name: symbol.getName(), type: symbol.getTypeAtLocation(node), optional, rest };
  });
  const rest = parameters.find((parameter) => parameter.rest);
  if (rest !== undefined) return { reason: `its parameter "...${rest.name}" is a rest parameter (a program passes one arguments object)` };
  const only = parameters.length === 1 ? parameters[0] : undefined;
  let schema: JsonSchema;
  if (only !== undefined && isPlainObjectType(definedPart(only.type))) {
    const derived = schemaOfType(definedPart(only.type), node);
    if (derived.unsupported !== undefined) return { reason: `its parameter "${only.name}" is not JSON data: ${derived.unsupported}` };
    schema = rootObject(derived.schema);
  } else {
    const derived = schemaOfMembers(parameters, node);
    if (derived.unsupported !== undefined) return { reason: `its parameter ${derived.unsupported}` };
    schema = { ...derived.schema, [POSITIONAL_KEYWORD]: parameters.map((parameter) => parameter.name) };
  }
  return { schema: denyArguments(closed(schema, false), sdk.denyArguments) };
}

/**
 * The top level closed to the declared properties: without an index signature (`force`: even with
 * one), a property the type does not declare is refused by the bridge instead of reaching the SDK,
 * which may pass its argument on (as options of a request). A union at the top level stays as it is.
 */
function closed(schema: JsonSchema, force: boolean): JsonSchema {
  const combined = schema.anyOf !== undefined || schema.oneOf !== undefined || schema.allOf !== undefined;
  if (combined || !isJsonSchemaObject(schema.properties)) return schema;
  return force || schema.additionalProperties === undefined ? { ...schema, additionalProperties: false } : schema;
}

/** A `$ref` at the root made the referenced object itself (an input schema is always an object schema). */
function rootObject(schema: JsonSchema): JsonSchema {
  const ref = typeof schema.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
  const defs = isJsonSchemaObject(schema.$defs) ? schema.$defs : undefined;
  const target = ref === undefined ? undefined : defs?.[ref];
  if (!isJsonSchemaObject(target)) return schema;
  // The other types may still refer to it, so it stays in $defs too.
  return { ...target, $defs: defs };
}

/**
 * Properties a program may not pass: their schema is `false`, and they are no longer required. The
 * top level is closed even over an index signature: against an open object (Octokit's
 * `[parameter: string]: unknown`) a deny list is never complete, e.g. Octokit takes `url` (an
 * absolute one sends the token there) and `method` from the same object.
 */
function denyArguments(schema: JsonSchema, denied: readonly string[] | undefined): JsonSchema {
  if (denied === undefined || denied.length === 0) return schema;
  const properties = { ...(isJsonSchemaObject(schema.properties) ? schema.properties : {}) };
  for (const name of denied) properties[name] = false;
  const required = Array.isArray(schema.required) ? schema.required.filter((name) => !denied.includes(String(name))) : undefined;
  const { required: _required, ...rest } = schema;
  return closed({ ...rest, properties, ...(required !== undefined && required.length > 0 ? { required } : {}) }, true);
}

function isPlainObjectType(type: Type): boolean {
  return (type.isObject() || type.isIntersection()) && !type.isArray() && !type.isTuple() && type.getCallSignatures().length === 0;
}

/** `T` of `T | undefined` (an optional parameter's type). */
function definedPart(type: Type): Type {
  if (!type.isUnion()) return type;
  const parts = type.getUnionTypes().filter((part) => !part.isUndefined());
  return parts.length === 1 && parts[0] !== undefined ? parts[0] : type;
}

/** `T` of `Promise<T>` (and of `PromiseLike<T>`), else the type itself. */
function awaited(type: Type): Type {
  const name = type.getSymbol()?.getName();
  const argument = type.getTypeArguments()[0];
  return (name === 'Promise' || name === 'PromiseLike') && argument !== undefined ? awaited(argument) : type;
}

/**
 * `T` of an HTTP response envelope `{ data: T, status, headers, url }`: a program wants the answer,
 * not the transport (whose headers may carry what the host keeps to itself).
 */
export function unwrapEnvelope(type: Type, node: Node): Type | undefined {
  if (!type.isObject() && !type.isIntersection()) return undefined;
  const names = new Set(type.getProperties().map((property) => property.getName()));
  if (!ENVELOPE_KEYS.every((key) => names.has(key))) return undefined;
  return type.getPropertyOrThrow('data').getTypeAtLocation(node);
}

function docOf(signature: Signature, symbol: MorphSymbol, node: Node): string | undefined {
  const fromSignature = signature
    .getDocumentationComments()
    .map((part) => part.getText())
    .join('')
    .trim();
  return fromSignature !== '' ? fromSignature : symbolDoc(symbol, node);
}

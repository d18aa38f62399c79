import { isJsonSchemaObject, type CapabilitySpec, type FunctionSpec, type JsonSchema } from '../core/index.js';
import { declaredTypeNames } from './declarations/emit-declarations.js';
import { resolveRef, resolveSegments, toPointer } from './declarations/json-pointer.js';
import { matchesNothing } from './declarations/matches-nothing.js';
import { isVoidResult } from './declarations/void-result.js';

/**
 * A one-line, shallow signature for catalogs and search results:
 * `getSchedule(params?: { station?: string; date?: string }): Promise<Trip[]>`. A `$ref` target is
 * written by the name its module's declarations give it (`body: NewPet`, `Promise<Pet>`), so pass the
 * function's `capability` (without it, names are those the function would get alone); the full types
 * are in the module's declarations.
 */
export function formatSignature(fn: FunctionSpec, capability?: CapabilitySpec): string {
  const owner =
    capability?.functions.includes(fn) === true
      ? capability
      : { module: '', namespace: '', source: { kind: 'std' as const }, config: {}, functions: [fn] };
  const names = declaredTypeNames(owner).get(fn.name);
  const required = requiredOf(fn.inputSchema);
  const params = shallowType(fn.inputSchema, 0, { root: fn.inputSchema, hops: 0, names: names?.params });
  const optional = required.length === 0 ? '?' : '';
  return `${fn.name}(params${optional}: ${params}): Promise<${returnType(fn, names?.result)}>`;
}

function returnType(fn: FunctionSpec, names: ReadonlyMap<string, string> | undefined): string {
  if (fn.outputSchema)
    return isVoidResult(fn.outputSchema) ? 'void' : shallowType(fn.outputSchema, 0, { root: fn.outputSchema, hops: 0, names });
  // A type learned from observed results (see compiler/inferred-results.ts) stands in for the text.
  if (fn.resultKind === 'mcp-text' && fn.inferredResult)
    return shallowType(fn.inferredResult.schema, 0, { root: fn.inferredResult.schema, hops: 0, names });
  return fn.resultKind === 'mcp-text' ? 'string' : 'unknown';
}

function requiredOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((x): x is string => typeof x === 'string') : [];
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Keywords that say nothing of a value's type. */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  '$defs',
  'definitions',
  'title',
  'description',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'default',
  'format',
]);

/** How many `$ref`s in a row are followed before a chain counts as a cycle. */
const MAX_REF_HOPS = 8;

/** The schema `$ref`s resolve against, and how many refs were followed to get here. */
interface RefContext {
  root: JsonSchema;
  hops: number;
  /** The declarations' names of the root's `$ref` targets (pointer → type name). */
  names: ReadonlyMap<string, string> | undefined;
}

function shallowType(schema: unknown, depth: number, refs: RefContext): string {
  if (matchesNothing(schema)) return 'never';
  if (!isJsonSchemaObject(schema)) return 'unknown';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const variants = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(variants)) {
    const possible = variants.filter((variant) => !matchesNothing(variant));
    return possible.length === 0 ? 'never' : possible.map((v) => shallowType(v, depth + 1, refs)).join(' | ');
  }
  if (typeof schema.$ref === 'string') {
    // Only refs inside this schema are followed (as in the declarations); the rest are unknown.
    // Resolved against the root's base (a nested `$id` changes it, which a shallow walk does not track).
    const segments = resolveRef(refs.root, schema.$ref);
    const target = segments === undefined ? undefined : resolveSegments(refs.root, segments);
    if (target === undefined) return 'unknown';
    // The declarations' name for it (the root itself is written out, not called by its name).
    const name = segments !== undefined && segments.length > 0 ? refs.names?.get(toPointer(segments)) : undefined;
    if (name !== undefined) return name;
    if (refs.hops >= MAX_REF_HOPS) return 'unknown';
    return shallowType(target, depth, { ...refs, hops: refs.hops + 1 });
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    // Every part holds: `NewPet & { id: number }` (a `$ref` wrapped to carry a description is just it).
    const { allOf, ...rest } = schema;
    const own = Object.keys(rest).some((key) => !ANNOTATIONS.has(key)) ? [shallowType(rest, depth, refs)] : [];
    const parts = [...own, ...(allOf as unknown[]).map((part) => shallowType(part, depth, refs))].filter((part) => part !== 'unknown');
    return parts.length === 0 ? 'unknown' : parts.map((part) => (parts.length > 1 ? wrap(part) : part)).join(' & ');
  }
  const type = schema.type;
  if (Array.isArray(type)) return type.map((t) => shallowType({ ...schema, type: t }, depth, refs)).join(' | ');
  switch (type) {
    case 'string':
    case 'boolean':
    case 'null':
      return type;
    case 'integer':
    case 'number':
      return 'number';
    case 'array':
      return `${wrap(shallowType(schema.items, depth + 1, refs))}[]`;
    case 'object':
    case undefined: {
      if (!isJsonSchemaObject(schema.properties)) return type === 'object' ? 'object' : 'unknown';
      if (depth >= 2) return '{ … }';
      const required = new Set(requiredOf(schema));
      const entries = Object.entries(schema.properties).map(([key, value]) => {
        const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
        return `${name}${required.has(key) ? '' : '?'}: ${shallowType(value, depth + 1, refs)}`;
      });
      return entries.length === 0 ? '{}' : `{ ${entries.join('; ')} }`;
    }
    default:
      return 'unknown';
  }
}

/** Parenthesises a union before `[]`; a `|` inside braces or quotes is not a top-level union. */
function wrap(type: string): string {
  let depth = 0;
  let quoted = false;
  for (let index = 0; index < type.length; index++) {
    const char = type[index];
    if (char === '"' && type[index - 1] !== '\\') quoted = !quoted;
    else if (quoted) continue;
    else if (char === '{' || char === '(') depth++;
    else if (char === '}' || char === ')') depth--;
    else if (char === '|' && depth === 0) return `(${type})`;
  }
  return type;
}

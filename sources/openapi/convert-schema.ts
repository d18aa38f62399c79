import { CompileError, type JsonSchema } from '../../core/index.js';
import { isJsonObject, toPointer, type JsonObject } from './json-walk.js';

/** Deeper than this, a schema is typed `unknown`: real specs nest a dozen levels at most. */
const MAX_DEPTH = 48;
/** Keywords whose value is one subschema. */
const SINGLE = new Set([
  'additionalProperties',
  'additionalItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentSchema',
]);
/** Keywords whose value is a list of subschemas. */
const LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to subschemas. */
const MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas']);
/**
 * OpenAPI-only keywords (or ones that would change how `$ref`s resolve), left out of the JSON Schema:
 * `nullable` is turned into a `null` type instead; `example` becomes `examples`.
 */
const DROPPED = new Set([
  'nullable',
  'discriminator',
  'xml',
  'externalDocs',
  'example',
  '$schema',
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$dynamicRef',
  '$comment',
  '$defs',
  'definitions',
]);

export interface SchemaContext {
  /**
   * The `$defs` name of every schema the dereferenced document shares (each target of a `$ref`), by
   * object identity: component schemas by their own names, others by where they are.
   */
  components: ReadonlyMap<object, string>;
  /** Where each shared schema is in the document (its `$ref` without `#`), for warnings. */
  pointers?: ReadonlyMap<object, string>;
  version: '3.0' | '3.1';
  warn(pointer: string, message: string): void;
  /**
   * What the API's converted schemas may add up to (characters of JSON, about), shared by all its
   * functions; converting past it throws a `CompileError` (see {@link outputBudget}).
   */
  budget?: OutputBudget;
}

/** The output budget of one API's schemas. */
export interface OutputBudget {
  /** Characters still allowed. */
  left: number;
  readonly limit: number;
  /** What went over it: `openapi "x" (spec)`, the spec's size. */
  readonly where: string;
  readonly specSize: number;
}

/** No API's schemas may be written out larger than this, whatever the size of its spec. */
export const MAX_OUTPUT_CHARS = 256 * 1024 * 1024;
/** Below this, an API's output is never refused (a small spec with many operations is fine). */
export const MIN_OUTPUT_CHARS = 16 * 1024 * 1024;
/** How many times its spec's size an API's schemas may take, written out (within the two bounds). */
export const OUTPUT_PER_SPEC_CHAR = 64;

/**
 * The output budget of a spec of `specSize` characters: {@link OUTPUT_PER_SPEC_CHAR} times its size,
 * at least {@link MIN_OUTPUT_CHARS}, at most {@link MAX_OUTPUT_CHARS}. Shared schemas are written once
 * per function (named, in `$defs`), so a real spec stays far below it; a document that shares structure
 * to be written out again and again (an alias bomb) fails its API at once, naming the spec.
 */
export function outputBudget(where: string, specSize: number): OutputBudget {
  const limit = Math.min(MAX_OUTPUT_CHARS, Math.max(MIN_OUTPUT_CHARS, specSize * OUTPUT_PER_SPEC_CHAR));
  return { left: limit, limit, where, specSize };
}

/**
 * Turns the OpenAPI schemas of one function's input or output into one JSON Schema root. The document
 * is dereferenced, so the target of a `$ref` (`#/components/schemas/Pet`) is the same object wherever
 * it is used: each becomes `{ $ref: '#/$defs/Pet' }` with its body once in the root's `$defs` (a named
 * type in the declarations). That keeps a recursive schema finite and the output linear in the spec (a
 * schema used twice at each of n levels is not copied 2^n times). A cycle through schemas no `$ref`
 * names (YAML aliases), or nesting past {@link MAX_DEPTH}, is typed `unknown` with a warning, never a crash.
 */
export class SchemaRoot {
  private readonly defs = new Map<string, JsonSchema>();
  private readonly ancestors = new Set<object>();

  constructor(private readonly context: SchemaContext) {}

  /** One schema of the document found at `pointer`, in JSON Schema. */
  convert(schema: unknown, pointer: string, depth = 0): JsonSchema | boolean {
    if (typeof schema === 'boolean') return schema;
    if (!isJsonObject(schema)) {
      this.context.warn(pointer, 'is not a schema object; typed as unknown');
      return {};
    }
    const name = this.context.components.get(schema);
    if (name === undefined) return this.body(schema, pointer, depth);
    if (!this.defs.has(name)) {
      this.defs.set(name, {}); // taken before the body is converted, so a recursive use refers to it
      this.defs.set(name, this.body(schema, this.context.pointers?.get(schema) ?? toPointer(['components', 'schemas', name]), 0));
    }
    return { $ref: `#/$defs/${name.replace(/~/g, '~0').replace(/\//g, '~1')}` };
  }

  /** `schema` with the named schemas it uses in `$defs` (and the 2020-12 dialect for OpenAPI 3.1). */
  finish(schema: JsonSchema): JsonSchema {
    const root: JsonSchema =
      this.context.version === '3.1' ? { $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema } : { ...schema };
    if (this.defs.size > 0) root.$defs = Object.fromEntries([...this.defs].sort(([a], [b]) => a.localeCompare(b)));
    return root;
  }

  private body(schema: JsonObject, pointer: string, depth: number): JsonSchema {
    if (this.ancestors.has(schema) || depth > MAX_DEPTH) {
      this.context.warn(
        pointer,
        this.ancestors.has(schema)
          ? 'contains itself through schemas without a name; typed as unknown'
          : `nests deeper than ${MAX_DEPTH} levels; typed as unknown`,
      );
      return {};
    }
    this.ancestors.add(schema);
    try {
      return this.fixNullable(schema, this.keywords(schema, pointer, depth + 1));
    } finally {
      this.ancestors.delete(schema);
    }
  }

  private keywords(schema: JsonObject, pointer: string, depth: number): JsonSchema {
    const out: JsonSchema = {};
    const at = (...segments: (string | number)[]): string => pointer + toPointer(segments);
    for (const [key, value] of Object.entries(schema)) {
      if (DROPPED.has(key)) continue;
      if (key === '$ref') {
        // Left by the dereferencer: a reference to another file or URL, which is not followed.
        this.context.warn(at('$ref'), `refers to ${JSON.stringify(value)}, outside this document; typed as unknown`);
      } else if (MAPS.has(key) && isJsonObject(value)) {
        define(
          out,
          key,
          Object.fromEntries(Object.entries(value).map(([name, child]) => [name, this.convert(child, at(key, name), depth)])),
        );
      } else if (LISTS.has(key) && Array.isArray(value)) {
        define(
          out,
          key,
          value.map((child, index) => this.convert(child, at(key, index), depth)),
        );
      } else if (key === 'items' && Array.isArray(value)) {
        out.prefixItems = value.map((child, index) => this.convert(child, at(key, index), depth));
      } else if ((SINGLE.has(key) || key === 'items') && (isJsonObject(value) || typeof value === 'boolean')) {
        define(out, key, this.convert(value, at(key), depth));
      } else {
        define(out, key, value);
      }
    }
    this.charge(schema, pointer);
    if (schema.example !== undefined && out.examples === undefined) out.examples = [schema.example];
    if (this.context.version === '3.0') fixExclusiveBounds(out);
    return out;
  }

  /** Counts one converted schema object against the API's output budget (its keys and plain values). */
  private charge(schema: JsonObject, pointer: string): void {
    const budget = this.context.budget;
    if (budget === undefined) return;
    let size = 2;
    for (const [key, value] of Object.entries(schema))
      size += key.length + 4 + (typeof value === 'object' && value !== null ? 2 : typeof value === 'string' ? value.length + 2 : 8);
    budget.left -= size;
    if (budget.left < 0) {
      throw new CompileError(
        'OPENAPI_TOO_LARGE',
        `${budget.where}: its schemas, written out for its operations, take more than ${budget.limit} characters (${OUTPUT_PER_SPEC_CHAR} times the spec's ${budget.specSize}, within ${MIN_OUTPUT_CHARS}–${MAX_OUTPUT_CHARS}); stopped at ${pointer || '(root)'}. A spec that shares schemas through YAML aliases or repeats them this much is refused; select fewer operations (include/exclude) or give the shared schemas names under components/schemas`,
      );
    }
  }

  /** OpenAPI 3.0's `nullable: true` as JSON Schema: `null` joins the type (or the schema is one of it and null). */
  private fixNullable(schema: JsonObject, out: JsonSchema): JsonSchema {
    if (schema.nullable !== true) return out;
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
    if (Array.isArray(out.type)) return out.type.includes('null') ? out : { ...out, type: [...(out.type as unknown[]), 'null'] };
    return Object.keys(out).length === 0 ? out : { anyOf: [out, { type: 'null' }] };
  }
}

/** Sets an own property whatever its name: a schema's key `__proto__` must stay a key, not set a prototype. */
function define(target: JsonSchema, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** OpenAPI 3.0 (JSON Schema draft 4) writes `exclusiveMinimum: true` beside `minimum`; JSON Schema since draft 6 writes the bound itself. */
function fixExclusiveBounds(out: JsonSchema): void {
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[flag] !== 'boolean') continue;
    if (out[flag] === true && typeof out[bound] === 'number') {
      out[flag] = out[bound];
      delete out[bound];
    } else {
      delete out[flag];
    }
  }
}

import { isJsonSchemaObject, type JsonSchema } from '../../core/index.js';

/**
 * Accepts the seed's shorthands in tool schemas and returns standard JSON Schema: a property with
 * `"required": true` joins its parent's `required` list, and `"optional": true` is dropped. A
 * parameters object (`root: 'parameters'`, the default) without `type` but with `properties` gets
 * `type: "object"`, since arguments are always an object. Every other schema keeps its type as written:
 * with `properties` and no `type` it also accepts strings, numbers and arrays, as JSON Schema says.
 */
export function normalizeToolSchema(schema: JsonSchema, options: { root?: 'parameters' | 'returns' } = {}): JsonSchema {
  // A schema built in code may use one object at many places: each is normalised once and stays shared.
  const copy = normalizeShorthands(schema, new Map());
  if ((options.root ?? 'parameters') === 'parameters' && isJsonSchemaObject(copy.properties) && copy.type === undefined) {
    copy.type = 'object';
  }
  return copy;
}

function normalizeShorthands(schema: JsonSchema, done: Map<JsonSchema, JsonSchema>): JsonSchema {
  const known = done.get(schema);
  if (known !== undefined) return known;
  const copy: JsonSchema = { ...schema };
  done.set(schema, copy);
  const properties = copy.properties;
  if (isJsonSchemaObject(properties)) {
    const required = new Set(
      Array.isArray(copy.required) ? (copy.required as unknown[]).filter((x): x is string => typeof x === 'string') : [],
    );
    const normalized: JsonSchema = {};
    for (const [key, value] of Object.entries(properties)) {
      if (!isJsonSchemaObject(value)) {
        define(normalized, key, value);
        continue;
      }
      const { required: flag, optional: _optional, ...rest } = value;
      if (flag === true) required.add(key);
      // `required: [..]` inside a property is standard (nested object); keep it.
      const plain = flag === undefined && _optional === undefined;
      define(normalized, key, normalizeShorthands(plain ? value : Array.isArray(flag) ? { ...rest, required: flag } : rest, done));
    }
    copy.properties = normalized;
    if (required.size > 0) copy.required = [...required];
  }
  if (isJsonSchemaObject(copy.items)) copy.items = normalizeShorthands(copy.items, done);
  return copy;
}

/**
 * Sets an own property whatever its name: schemas are data, and a property may be named `__proto__`
 * (assigning that key would set the object's prototype and lose the property).
 */
function define(target: JsonSchema, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The empty parameters object, for functions that take none. */
export function emptyObjectSchema(): JsonSchema {
  return { type: 'object', properties: {} };
}

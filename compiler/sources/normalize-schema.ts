import { isJsonSchemaObject, type JsonSchema } from '../../core/index.js';

/**
 * Accepts the seed's shorthands in JSON tool files and returns standard JSON Schema:
 * a property with `"required": true` joins its parent's `required` list, `"optional": true` is dropped,
 * and a parameters object without `type` but with `properties` gets `type: "object"`.
 */
export function normalizeToolSchema(schema: JsonSchema): JsonSchema {
  const copy: JsonSchema = { ...schema };
  const properties = copy.properties;
  if (isJsonSchemaObject(properties)) {
    const required = new Set(Array.isArray(copy.required) ? (copy.required as unknown[]).filter((x): x is string => typeof x === 'string') : []);
    const normalized: JsonSchema = {};
    for (const [key, value] of Object.entries(properties)) {
      if (!isJsonSchemaObject(value)) {
        normalized[key] = value;
        continue;
      }
      const { required: flag, optional: _optional, ...rest } = value;
      if (flag === true) required.add(key);
      // `required: [..]` inside a property is standard (nested object); keep it.
      normalized[key] = normalizeToolSchema(Array.isArray(flag) ? { ...rest, required: flag } : rest);
    }
    copy.properties = normalized;
    if (required.size > 0) copy.required = [...required];
    if (copy.type === undefined) copy.type = 'object';
  }
  if (isJsonSchemaObject(copy.items)) copy.items = normalizeToolSchema(copy.items);
  return copy;
}

/** The empty parameters object, for functions that take none. */
export function emptyObjectSchema(): JsonSchema {
  return { type: 'object', properties: {} };
}

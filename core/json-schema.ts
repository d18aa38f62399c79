/** A JSON Schema object as found in tool definitions (draft-07 / 2020-12 keywords). */
export type JsonSchema = { [keyword: string]: unknown };

/** Every schema an input may have; `true`/`false` are valid JSON Schemas too. */
export type JsonSchemaOrBoolean = JsonSchema | boolean;

export function isJsonSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

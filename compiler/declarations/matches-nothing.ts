import { isJsonSchemaObject } from '../../core/index.js';

/** Whether no value can match `schema`: `false`, or `not` of a schema that accepts everything (`{}`, `true`). */
export function matchesNothing(schema: unknown): boolean {
  if (schema === false) return true;
  if (!isJsonSchemaObject(schema)) return false;
  const negated = schema.not;
  return negated === true || (isJsonSchemaObject(negated) && Object.keys(negated).length === 0);
}

import { isJsonSchemaObject } from '../../core/index.js';

/** Keywords that describe a schema without constraining it further. */
const ANNOTATIONS = new Set(['type', '$schema', '$id', '$comment', 'title', 'description', '$defs', 'definitions']);

/**
 * Whether a result schema admits nothing but `null`: the function returns nothing (an HTTP 204, a
 * 2xx without content), declared `void` rather than `null`.
 */
export function isVoidResult(schema: unknown): boolean {
  return isJsonSchemaObject(schema) && schema.type === 'null' && Object.keys(schema).every((key) => ANNOTATIONS.has(key));
}

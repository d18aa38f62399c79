import { isJsonSchemaObject, type JsonSchema } from '../../core/index.js';
import { resolveRef, resolveSegments, toPointer } from './json-pointer.js';
import { MAX_DEPTH } from './type-text.js';

/** Keywords whose values are subschemas (or maps/arrays of them), walked when collecting `$ref`s. */
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_KEYWORDS = [
  'additionalProperties',
  'items',
  'additionalItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
];

/** Every `$ref` target inside `root` that resolves to a part of it, as path segments (the root itself excluded). */
export function collectLocalRefTargets(root: unknown): string[][] {
  const targets = new Map<string, string[]>();
  const seen = new Set<object>();
  const visit = (schema: unknown, path: string[], depth: number): void => {
    if (!isJsonSchemaObject(schema) || depth > MAX_DEPTH || seen.has(schema)) return;
    seen.add(schema);
    const ref = refOf(schema);
    if (ref !== undefined) {
      const segments = resolveRef(root, ref, path);
      if (segments !== undefined && segments.length > 0 && resolveSegments(root, segments) !== undefined) {
        targets.set(toPointer(segments), segments);
      }
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const map = schema[keyword];
      if (isJsonSchemaObject(map)) for (const key of Object.keys(map)) visit(map[key], [...path, keyword, key], depth + 1);
    }
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      const list = schema[keyword];
      if (Array.isArray(list)) list.forEach((item, index) => visit(item, [...path, keyword, String(index)], depth + 1));
    }
    for (const keyword of SCHEMA_KEYWORDS) {
      const value = schema[keyword];
      if (Array.isArray(value)) value.forEach((item, index) => visit(item, [...path, keyword, String(index)], depth + 1));
      else visit(value, [...path, keyword], depth + 1);
    }
  };
  visit(root, [], 0);
  return [...targets.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, segments]) => segments);
}

/** The reference a schema makes, if any. */
export function refOf(schema: JsonSchema): string | undefined {
  if (typeof schema.$ref === 'string') return schema.$ref;
  // Older recursive-reference keywords: only the whole-document form can be honoured statically.
  if (schema.$recursiveRef === '#' || schema.$dynamicRef === '#') return '#';
  return undefined;
}

import { createHash } from 'node:crypto';
import { isJsonObject, toPointer, type JsonObject } from './json-walk.js';

/** A schema reached more than once is named (a `$defs` entry) from this estimated size of its JSON up. */
export const MIN_SHARED_SCHEMA_CHARS = 256;
/** Keywords whose value is one subschema. */
const SINGLE = [
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
  'items',
];
/** Keywords whose value is a list of subschemas. */
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Keywords whose value maps names to subschemas. */
const MAPS = ['properties', 'patternProperties', 'dependentSchemas'];
const SATURATED = 1e15;
/** As deep as the converter writes schemas out (convert-schema.ts). */
const MAX_DEPTH = 48;

interface Seen {
  /** How many times the walk reached this object (through different parents or places). */
  uses: number;
  /** Where it was first reached. */
  pointer: string;
  /** A hash of its content (named schemas stand for themselves), for finding equal schemas. */
  hash: string;
  /** About how many characters its JSON has, written out in full. */
  size: number;
}

/**
 * Schemas of a dereferenced document that would be written out more than once: the same object reached
 * at several places (a YAML alias after parsing, a `$ref` target not named yet) or equal schemas at
 * several places, of {@link MIN_SHARED_SCHEMA_CHARS} or more. Each such schema is returned with the
 * pointer of its first place (for its name); objects of one equal group share one entry's pointer, so
 * they get one name and are emitted once. `named` (components, `$ref` targets) are named already: they
 * are not walked into again, which also ends every cycle a `$ref` made.
 *
 * @param roots every schema position the operations use, with its pointer, in document order
 */
export function findSharedSchemas(roots: Iterable<[unknown, string]>, named: ReadonlyMap<object, string>): Map<object, string> {
  const seen = new Map<object, Seen>();
  const onStack = new Set<object>();
  let cycles = 0;
  const visit = (schema: unknown, pointer: string, depth = 0): { hash: string; size: number } => {
    if (!isJsonObject(schema)) return { hash: JSON.stringify(schema) ?? 'undefined', size: (JSON.stringify(schema) ?? '').length };
    // A named schema is written as a `$ref` to it wherever it is used (its body once, in `$defs`).
    const name = named.get(schema);
    const reference = name === undefined ? undefined : { hash: `named:${name}`, size: name.length + 24 };
    if (reference !== undefined && (seen.has(schema) || onStack.has(schema))) return reference;
    const known = seen.get(schema);
    if (known !== undefined) {
      known.uses += 1;
      return known;
    }
    // A cycle through schemas no `$ref` names (the converter types it unknown), or nesting past what
    // the converter writes out: here it is just itself.
    if (onStack.has(schema) || depth > MAX_DEPTH) return { hash: `cycle:${(cycles += 1)}`, size: 2 };
    onStack.add(schema);
    const parts: string[] = [];
    let size = 2;
    const at = (...segments: (string | number)[]): string => pointer + toPointer(segments);
    for (const [key, value] of Object.entries(schema)) {
      let text: string;
      if (MAPS.includes(key) && isJsonObject(value)) {
        const entries = Object.entries(value).map(([child, sub]) => [child, visit(sub, at(key, child), depth + 1)] as const);
        text = `{${entries.map(([child, { hash }]) => `${JSON.stringify(child)}:${hash}`).join(',')}}`;
        size += entries.reduce((sum, [child, sub]) => sum + child.length + 4 + sub.size, 2);
      } else if (LISTS.includes(key) && Array.isArray(value)) {
        const items = value.map((sub, index) => visit(sub, at(key, index), depth + 1));
        text = `[${items.map((item) => item.hash).join(',')}]`;
        size += items.reduce((sum, item) => sum + item.size + 1, 2);
      } else if (SINGLE.includes(key) && (isJsonObject(value) || typeof value === 'boolean')) {
        const sub = visit(value, at(key), depth + 1);
        text = sub.hash;
        size += sub.size;
      } else {
        text = JSON.stringify(value) ?? 'undefined';
        size += text.length;
      }
      parts.push(`${JSON.stringify(key)}:${text}`);
      size += key.length + 4;
    }
    onStack.delete(schema);
    const entry: Seen = {
      uses: 1,
      pointer,
      hash: createHash('sha256').update(parts.join(',')).digest('base64'),
      size: Math.min(size, SATURATED),
    };
    seen.set(schema, entry);
    return reference ?? entry;
  };
  for (const [schema, pointer] of roots) visit(schema, pointer);
  // Equal schemas are one: their uses add up, and the first one's place names them all.
  const groups = new Map<string, { uses: number; pointer: string; members: object[]; size: number }>();
  for (const [schema, entry] of seen) {
    if (named.has(schema)) continue;
    const group = groups.get(entry.hash) ?? { uses: 0, pointer: entry.pointer, members: [], size: entry.size };
    group.uses += entry.uses;
    group.members.push(schema);
    groups.set(entry.hash, group);
  }
  const shared = new Map<object, string>();
  for (const group of groups.values()) {
    if (group.uses < 2 || group.size < MIN_SHARED_SCHEMA_CHARS) continue;
    for (const member of group.members) shared.set(member, group.pointer);
  }
  return shared;
}

export type { JsonObject };

import { createHash } from 'node:crypto';
import { isJsonSchemaObject } from '../../core/index.js';
import { resolveRef, resolveSegments, rootId, toPointer } from './json-pointer.js';
import { refOf } from './ref-targets.js';

/** A target reaching more named schemas than this is not compared with others (it keeps its own name). */
const MAX_CLOSURE = 256;

/**
 * What a `$ref` target of `root` is, independent of the root it sits in: a hash of its schema and of
 * every schema it refers to (transitively), with their pointers. Two targets with the same identity in
 * two roots (each function's schema carries its own copy of `$defs/Pet`) declare the same type, so a
 * module declares it once. A target that reaches the root itself, or too many others, gets an
 * identity of its own. Memoized per root in `cache` (pointer → schema text and references).
 */
export function targetIdentity(
  root: unknown,
  segments: readonly string[],
  cache: Map<string, { text: string; refs: string[][] }>,
  unique: string,
): string {
  const base = rootId(root);
  const seen = new Set<string>();
  const parts: string[] = [];
  const stack: (readonly string[])[] = [segments];
  while (stack.length > 0) {
    const current = stack.pop() ?? [];
    const pointer = toPointer(current);
    if (seen.has(pointer)) continue;
    if (current.length === 0 || seen.size >= MAX_CLOSURE) return unique;
    seen.add(pointer);
    let entry = cache.get(pointer);
    if (entry === undefined) {
      const schema = resolveSegments(root, current);
      entry = { text: JSON.stringify(schema) ?? 'undefined', refs: refsIn(root, schema, current) };
      cache.set(pointer, entry);
    }
    parts.push(`${pointer}\u0000${entry.text}`);
    stack.push(...entry.refs);
  }
  const hash = createHash('sha256')
    .update(base ?? '')
    .update('\u0001')
    .update(toPointer(segments));
  for (const part of parts.sort()) hash.update('\u0001').update(part);
  return hash.digest('hex');
}

/** The local references anywhere inside `schema` (at `at` in `root`; any depth, any keyword), as path segments. */
function refsIn(root: unknown, schema: unknown, at: readonly string[]): string[][] {
  const found: string[][] = [];
  const seen = new Set<object>();
  const visit = (value: unknown, path: string[]): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, [...path, String(index)]));
      return;
    }
    if (isJsonSchemaObject(value)) {
      const ref = refOf(value);
      const segments = ref === undefined ? undefined : resolveRef(root, ref, path);
      if (segments !== undefined) found.push(segments);
      for (const key of Object.keys(value)) visit(value[key], [...path, key]);
    }
  };
  visit(schema, [...at]);
  return found;
}

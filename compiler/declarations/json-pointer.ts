import { isJsonSchemaObject } from '../../core/json-schema.js';

/** Encodes path segments as a JSON pointer (`['$defs', 'a/b']` → `/$defs/a~1b`). */
export function toPointer(segments: readonly string[]): string {
  return segments.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * Path segments of a `$ref` that points into the same document (`#`, `#/$defs/x`), or undefined for
 * anything else (another document, an `$anchor`, a malformed pointer).
 */
export function localRefSegments(ref: string): string[] | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return [];
  if (!fragment.startsWith('/')) return undefined;
  return fragment
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at `segments` inside `root`, or undefined when the path does not exist. */
export function resolveSegments(root: unknown, segments: readonly string[]): unknown {
  let current: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(segment)) current = current[Number(segment)];
    else if (isJsonSchemaObject(current) && Object.hasOwn(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

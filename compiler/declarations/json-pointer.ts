import { isJsonSchemaObject } from '../../core/index.js';

/** Encodes path segments as a JSON pointer (`['$defs', 'a/b']` → `/$defs/a~1b`). */
export function toPointer(segments: readonly string[]): string {
  return segments.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** A stand-in base, so that a relative root `$id` (`order.json`) can still be resolved against. */
const NO_BASE = 'agent-spaces-schema:/';

/** The root schema's `$id`, the base its `$ref`s resolve against. */
export function rootId(root: unknown): string | undefined {
  return isJsonSchemaObject(root) && typeof root.$id === 'string' ? root.$id : undefined;
}

/**
 * Path segments of a `$ref` that points into the same document (`#`, `#/$defs/x`, or a URI that
 * resolves to the root's `$id` such as `order.json#/$defs/x`), or undefined for anything else (another
 * document, an `$anchor`, a malformed pointer).
 */
export function localRefSegments(ref: string, baseId?: string): string[] | undefined {
  const local = ref.startsWith('#') ? ref : sameDocumentFragment(ref, baseId);
  if (local === undefined) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(local.slice(1));
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

/** `#…` when `ref` resolves to the document whose `$id` is `baseId`; undefined otherwise. */
function sameDocumentFragment(ref: string, baseId: string | undefined): string | undefined {
  if (baseId === undefined) return undefined;
  try {
    const base = new URL(baseId, NO_BASE);
    const target = new URL(ref, base);
    base.hash = '';
    const fragment = target.hash === '' ? '#' : target.hash;
    target.hash = '';
    return target.href === base.href ? fragment : undefined;
  } catch {
    return undefined;
  }
}

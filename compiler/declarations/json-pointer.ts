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

/** Keywords whose values are data, not schemas: an `$id` inside them names nothing. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'examples', 'default']);

interface RefIndex {
  /** Absolute URI of each schema resource (the root and every nested `$id`) → its path. */
  resources: Map<string, string[]>;
  /** `<resource URI>#<name>` of each `$anchor` (and draft-07 `$id: "#name"`) → its path. */
  anchors: Map<string, string[]>;
}

const indexes = new WeakMap<object, RefIndex>();

/** The base URI of the root: its `$id` resolved against a stand-in, else the stand-in. */
function rootBase(root: unknown): string {
  const id = rootId(root);
  try {
    return new URL(id ?? '', NO_BASE).href.replace(/#.*$/, '');
  } catch {
    return NO_BASE;
  }
}

/** A nested `$id` (a new base) or undefined; `#name` ids are anchors, not bases. */
function ownBase(schema: unknown, base: string): string | undefined {
  if (!isJsonSchemaObject(schema) || typeof schema.$id !== 'string' || schema.$id.startsWith('#')) return undefined;
  try {
    return new URL(schema.$id, base).href.replace(/#.*$/, '');
  } catch {
    return undefined;
  }
}

function indexOf(root: object): RefIndex {
  let index = indexes.get(root);
  if (index !== undefined) return index;
  index = { resources: new Map(), anchors: new Map() };
  const { resources, anchors } = index;
  const seen = new Set<object>();
  const visit = (value: unknown, path: string[], base: string): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      value.forEach((item, position) => visit(item, [...path, String(position)], base));
      return;
    }
    const own = path.length === 0 ? base : ownBase(value, base);
    const here = own ?? base;
    if (own !== undefined && !resources.has(own)) resources.set(own, path);
    const record = value as Record<string, unknown>;
    const anchor =
      typeof record.$anchor === 'string'
        ? record.$anchor
        : typeof record.$id === 'string' && record.$id.startsWith('#')
          ? record.$id.slice(1)
          : undefined;
    if (anchor !== undefined && anchor !== '' && !anchors.has(`${here}#${anchor}`)) anchors.set(`${here}#${anchor}`, path);
    for (const key of Object.keys(record)) if (!DATA_KEYWORDS.has(key)) visit(record[key], [...path, key], here);
  };
  visit(root, [], rootBase(root));
  indexes.set(root, index);
  return index;
}

/**
 * The path of the schema a `$ref` written at `at` (the path of the schema that holds it) refers to
 * inside `root`, resolved as JSON Schema says: against the nearest enclosing `$id` (so a nested
 * resource's `#/properties/x` is its own, and `../root.json` from it may be the root), through JSON
 * pointers and `$anchor`s. Undefined for anything outside `root` (another document, a URL) or
 * malformed.
 */
export function resolveRef(root: unknown, ref: string, at: readonly string[] = []): string[] | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  let base = rootBase(root);
  let current: unknown = root;
  for (const segment of at) {
    current =
      Array.isArray(current) && /^(0|[1-9]\d*)$/.test(segment)
        ? current[Number(segment)]
        : isJsonSchemaObject(current) && Object.hasOwn(current, segment)
          ? current[segment]
          : undefined;
    if (current === undefined) break;
    base = ownBase(current, base) ?? base;
  }
  let target: URL;
  let fragment: string;
  try {
    target = new URL(ref, base);
    fragment = decodeURIComponent(target.hash.slice(1));
  } catch {
    return undefined;
  }
  target.hash = '';
  const index = indexOf(root);
  const resource = index.resources.get(target.href);
  if (resource === undefined) return undefined;
  if (fragment === '') return [...resource];
  if (!fragment.startsWith('/')) {
    const anchored = index.anchors.get(`${target.href}#${fragment}`);
    return anchored === undefined ? undefined : [...anchored];
  }
  const pointer = fragment
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return [...resource, ...pointer];
}

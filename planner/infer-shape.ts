/**
 * The shape of a JSON value as a small JSON description: `"string"`, `"number|null"`, `{ key: shape }`,
 * `[elementShape]`. Array elements are merged over a sample, so the shape stays small for big data.
 */
export type Shape = string | Shape[] | { [key: string]: Shape };

const ELEMENTS_SAMPLED = 200;
const MAX_KEYS = 40;

export function inferShape(value: unknown, depth = 4): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    if (depth <= 0) return ['…'];
    let merged: Shape | undefined;
    for (const element of value.slice(0, ELEMENTS_SAMPLED)) {
      const shape = inferShape(element, depth - 1);
      merged = merged === undefined ? shape : mergeShapes(merged, shape);
    }
    return [merged ?? 'unknown'];
  }
  if (typeof value === 'object') {
    if (depth <= 0) return 'object';
    const shape: Record<string, Shape> = {};
    const keys = Object.keys(value);
    for (const key of keys.slice(0, MAX_KEYS)) shape[key] = inferShape((value as Record<string, unknown>)[key], depth - 1);
    if (keys.length > MAX_KEYS) shape['…'] = `${keys.length - MAX_KEYS} more keys`;
    return shape;
  }
  return typeof value;
}

/** Two shapes as one: objects merge key by key (a key missing on one side becomes optional: `type|undefined`). */
export function mergeShapes(a: Shape, b: Shape): Shape {
  if (typeof a === 'string' && typeof b === 'string') return unionOf(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    const [x] = a;
    const [y] = b;
    if (x === undefined) return b;
    if (y === undefined) return a;
    return [mergeShapes(x, y)];
  }
  if (isRecord(a) && isRecord(b)) {
    const merged: Record<string, Shape> = {};
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const left = a[key];
      const right = b[key];
      merged[key] =
        left !== undefined && right !== undefined ? mergeShapes(left, right) : mergeShapes(left ?? right ?? 'undefined', 'undefined');
    }
    return merged;
  }
  return unionOf(describe(a), describe(b));
}

function unionOf(a: string, b: string): string {
  return [...new Set([...a.split('|'), ...b.split('|')])].sort().join('|');
}

function describe(shape: Shape): string {
  if (typeof shape === 'string') return shape;
  return Array.isArray(shape) ? 'array' : 'object';
}

function isRecord(shape: Shape): shape is Record<string, Shape> {
  return typeof shape === 'object' && !Array.isArray(shape);
}

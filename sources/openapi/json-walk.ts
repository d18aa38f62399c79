/** A JSON object as parsed from a spec. */
export type JsonObject = { [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON pointer (RFC 6901) of path segments: `['paths', '/pets/{id}']` → `/paths/~1pets~1{id}`. */
export function toPointer(segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The pointers of every object in `root` that `matches` (a tree as parsed: no cycles), in document order. */
export function findPointers(root: unknown, matches: (node: JsonObject) => boolean): string[] {
  const found: string[] = [];
  const visit = (node: unknown, segments: (string | number)[]): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...segments, index]));
      return;
    }
    if (!isJsonObject(node)) return;
    if (matches(node)) found.push(toPointer(segments));
    for (const [key, child] of Object.entries(node)) visit(child, [...segments, key]);
  };
  visit(root, []);
  return found;
}

/**
 * The pointer of the value that starts on `line` (1-based) of `JSON.stringify(root, null, 2)`, the text
 * the OpenAPI validator quotes its code frames from; undefined past the end.
 */
export function pointerAtLine(root: unknown, line: number): string | undefined {
  let current = 1;
  let found: string | undefined;
  const visit = (value: unknown, segments: (string | number)[]): void => {
    if (current === line) found ??= toPointer(segments);
    const children: [string | number, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : isJsonObject(value)
        ? Object.entries(value).filter(([, child]) => child !== undefined && typeof child !== 'function')
        : [];
    if (children.length === 0) return;
    for (const [key, child] of children) {
      current += 1;
      visit(child, [...segments, key]);
    }
    current += 1; // the closing bracket
  };
  visit(root, []);
  return found;
}

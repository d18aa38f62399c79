/**
 * JSON with object keys sorted (by code unit, recursively; integer-like keys too, which JSON.stringify
 * would put first), so two values that differ only in key order serialize alike. Tool schemas' hashes
 * (drift after a build) and journaled calls' argument hashes (a program rebuilding its arguments on
 * replay may build them in another order) are taken on it. `undefined` is left out as JSON leaves it.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

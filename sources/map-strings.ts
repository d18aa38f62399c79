import { redactText, type Secret } from '../core/index.js';

/**
 * A copy of the JSON-like `value` with every string passed through `map` — object keys too with
 * `keys: true`. Properties are defined, not assigned, so a `__proto__` key stays an own property of
 * the copy instead of setting its prototype.
 */
export function mapStrings<T>(value: T, map: (text: string) => string, options: { keys?: boolean } = {}): T {
  const visit = (current: unknown): unknown => {
    if (typeof current === 'string') return map(current);
    if (Array.isArray(current)) return current.map(visit);
    if (typeof current !== 'object' || current === null) return current;
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(current)) {
      Object.defineProperty(copy, options.keys ? map(key) : key, {
        value: visit(child),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };
  return visit(value) as T;
}

/**
 * `value` (a server's tools, a spec's schemas, an error's details) with `secrets` cut out of its
 * strings. Unlike the bridge's redactor it keeps what sits under secret-looking keys: a schema's
 * `token` property is a name, not a secret.
 */
export function withoutSecrets<T>(value: T, secrets: readonly Secret[], options: { keys?: boolean } = {}): T {
  return secrets.length === 0 ? value : mapStrings(value, (text) => redactText(text, secrets), options);
}

import type { ConfigIssue } from '../core/index.js';

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` in one string. A variable that is unset (or empty, for the
 * `:-` form) and has no default is reported as an issue at `path`, not replaced silently.
 */
export function expandEnvString(value: string, env: Record<string, string | undefined>, path: string, issues: ConfigIssue[]): string {
  return value.replace(PATTERN, (match, name: string, fallback: string | undefined) => {
    const current = env[name];
    if (fallback !== undefined) return current === undefined || current === '' ? fallback : current;
    if (current === undefined) {
      issues.push({ path, message: `environment variable ${name} is not set (use \${${name}:-default} for a default)` });
      return match;
    }
    return current;
  });
}

/** Expands every string inside a JSON-like value, reporting missing variables with their paths. */
export function expandEnvDeep<T>(value: T, env: Record<string, string | undefined>, path: string, issues: ConfigIssue[]): T {
  if (typeof value === 'string') return expandEnvString(value, env, path, issues) as T;
  if (Array.isArray(value)) return value.map((item, index) => expandEnvDeep(item, env, `${path}.${index}`, issues)) as T;
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = expandEnvDeep(item, env, path ? `${path}.${key}` : key, issues);
    return out as T;
  }
  return value;
}

import { createRedactor, REDACTED, redactText } from '../bridge/index.js';

/**
 * Shapes of well-known credentials, cut out of any string even when no key names them: OpenAI-style
 * `sk-…`, GitHub, Slack, AWS access key ids, Google API keys, bearer tokens, PEM private keys.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

export interface TaskRedactor {
  /** A copy of a value with secret-looking keys, known secret values and credential shapes redacted. */
  value<T>(value: T): T;
  text(text: string): string;
}

/**
 * The planner's redactor: the bridge's key rules and known secret values (the model API key, MCP server
 * env and header values), plus credential patterns. Everything passes through it before it reaches the
 * prompt, a log, the trace or a file.
 */
export function createTaskRedactor(secrets: readonly string[]): TaskRedactor {
  const usable = secrets.filter((secret) => secret.length >= 6);
  const byKey = createRedactor({ secrets: usable });
  const text = (input: string): string => {
    let result = usable.length > 0 ? redactText(input, usable) : input;
    for (const pattern of SECRET_PATTERNS) {
      result = result.replace(pattern, (_match, prefix: unknown) => (typeof prefix === 'string' ? `${prefix}${REDACTED}` : REDACTED));
    }
    return result;
  };
  const deep = (current: unknown): unknown => {
    if (typeof current === 'string') return text(current);
    if (Array.isArray(current)) return current.map(deep);
    if (typeof current === 'object' && current !== null && Object.getPrototypeOf(current) === Object.prototype) {
      return Object.fromEntries(Object.entries(current).map(([key, child]) => [key, deep(child)]));
    }
    return current;
  };
  return {
    value: <T>(value: T): T => deep(byKey(value)) as T,
    text,
  };
}

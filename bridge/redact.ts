/**
 * Redaction of secrets in values and text before they leave the host in events, traces or prompts.
 */

/** What replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/**
 * Key fragments that mark a secret, compared case-insensitively with `-` and `_` removed, so
 * `api_key`, `API-Key`, `apiKey` and `x-api-key` all match `apikey`.
 */
export const DEFAULT_SECRET_KEYS: readonly string[] = [
  'token',
  'authorization',
  'password',
  'passwd',
  'passphrase',
  'apikey',
  'secret',
  'cookie',
  'credential',
  'privatekey',
];

/** Keys that are secrets only as a whole word (`auth`), not as a fragment (`author`). */
const EXACT_SECRET_KEYS: readonly string[] = ['auth', 'pwd'];

export interface RedactOptions {
  /** Extra key fragments to treat as secrets (same matching as the defaults). */
  keys?: readonly string[];
  /** Known secret values (e.g. env values of configured servers) to cut out of every string. */
  secrets?: readonly string[];
}

/**
 * Returns a copy of `value` where every property whose key looks like a secret is `"[REDACTED]"`, at
 * any depth, inside arrays too; cycles become `"[Circular]"`. Numbers and booleans under such keys are
 * kept, because they are counts and flags (`maxTokens`, `requiresPassword`), not secrets.
 *
 * @example
 * redact({ headers: { Authorization: 'Bearer x' }, maxTokens: 5 })
 * // → { headers: { Authorization: '[REDACTED]' }, maxTokens: 5 }
 */
export function redact<T>(value: T, options: RedactOptions = {}): T {
  return createRedactor(options)(value);
}

/** Most distinct keys a redactor remembers its verdict for; tool arguments reuse a few names. */
const KEY_CACHE_LIMIT = 10_000;

/**
 * A {@link redact} with its options fixed, remembering which keys are secret: the bridge makes one
 * and redacts every call's arguments with it.
 */
export function createRedactor(options: RedactOptions = {}): <T>(value: T) => T {
  const fragments = [...DEFAULT_SECRET_KEYS, ...(options.keys ?? []).map(normalizeKey)];
  const secrets = options.secrets ?? [];
  const verdicts = new Map<string, boolean>();
  const secretKey = (key: string): boolean => {
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = isSecretKey(key, fragments);
      if (verdicts.size < KEY_CACHE_LIMIT) verdicts.set(key, verdict);
    }
    return verdict;
  };

  return <T>(value: T): T => {
    const ancestors = new Set<object>();
    const visit = (current: unknown): unknown => {
      if (typeof current === 'string') return redactUrlPasswords(secrets.length > 0 ? redactText(current, secrets) : current);
      if (typeof current !== 'object' || current === null) return current;
      if (ancestors.has(current)) return '[Circular]';
      ancestors.add(current);
      try {
        if (Array.isArray(current)) return current.map(visit);
        if (!isPlainObject(current)) return current;
        const copy: Record<string, unknown> = {};
        for (const key of Object.keys(current)) {
          const child = current[key];
          const value = secretKey(key) && !isCountOrFlag(child) ? REDACTED : visit(child);
          // Defined, not assigned: assigning a "__proto__" key (JSON.parse makes one) would set the prototype.
          if (key === '__proto__') Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
          else copy[key] = value;
        }
        return copy;
      } finally {
        ancestors.delete(current);
      }
    };
    return visit(value) as T;
  };
}

/** Values shorter than this are not replaced: cutting them out would mangle unrelated text. */
const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every occurrence of the known secret values in `text` with `"[REDACTED]"`.
 * Secrets shorter than 4 characters are ignored.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  const usable = [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  // Longest first, so a secret that contains another is replaced whole.
  usable.sort((a, b) => b.length - a.length);
  let result = text;
  for (const secret of usable) result = result.split(secret).join(REDACTED);
  return result;
}

const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):([^\s/@]+)@/gi;

/** `https://user:password@host` → `https://user:[REDACTED]@host`: credentials written into URLs. */
export function redactUrlPasswords(text: string): string {
  return text.includes('@') ? text.replace(URL_USERINFO, `$1:${REDACTED}@`) : text;
}

/** Whether a property name looks like it holds a secret. */
export function isSecretKey(key: string, fragments: readonly string[] = DEFAULT_SECRET_KEYS): boolean {
  const normalized = normalizeKey(key);
  if (EXACT_SECRET_KEYS.includes(normalized)) return true;
  return fragments.some((fragment) => fragment.length > 0 && normalized.includes(fragment));
}

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_\s.]/g, '');
}

function isCountOrFlag(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'boolean';
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

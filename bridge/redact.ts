/**
 * Redaction of secrets in values and text before they leave the host in events, errors, traces or prompts.
 */
import { ToolCallError } from '../core/index.js';
import { REDACTED, redactSecrets } from '../config/index.js';

export { REDACTED };

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
      if (typeof current === 'string') return redactString(current, secrets);
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

/**
 * Replaces every occurrence of the known secret values in `text` with `"[REDACTED]"`: values of 8
 * characters or more wherever they appear, shorter ones (3 to 7) only where they stand alone, values
 * under 3 characters never (see `redactSecrets` in `config/server-secrets.ts`).
 */
export function redactText(text: string, secrets: readonly string[]): string {
  return redactSecrets(text, secrets);
}

/**
 * Shapes of well-known credentials, cut out of any string even when no configured value names them:
 * OpenAI-style `sk-…`, GitHub, Slack, AWS access key ids, Google API keys, bearer tokens, PEM private keys.
 */
const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** Cuts strings shaped like well-known credentials (`sk-…`, `ghp_…`, `Bearer …`, PEM keys) out of `text`. */
export function redactCredentialShapes(text: string): string {
  let result = text;
  for (const pattern of CREDENTIAL_SHAPES) {
    result = result.replace(pattern, (_match, prefix: unknown) => (typeof prefix === 'string' ? `${prefix}${REDACTED}` : REDACTED));
  }
  return result;
}

/** Everything a string loses before it leaves the host: known secrets, URL passwords, credential shapes. */
function redactString(text: string, secrets: readonly string[]): string {
  if (text.length < 8) return secrets.length > 0 ? redactText(text, secrets) : text;
  return redactCredentialShapes(redactUrlPasswords(redactText(text, secrets)));
}

/**
 * The same error with secrets cut out of its message, its details (which cross into the sandbox) and
 * its cause (which a host log may print); the error itself when nothing needed cutting. `redactValue`
 * is a {@link createRedactor} redactor.
 */
export function redactToolCallError(error: ToolCallError, redactValue: <T>(value: T) => T): ToolCallError {
  const message = redactValue(error.message);
  const details = error.details === undefined ? undefined : redactValue(error.details);
  const cause = redactCause(error.cause, redactValue);
  if (message === error.message && cause === error.cause && JSON.stringify(details) === JSON.stringify(error.details)) return error;
  return new ToolCallError(error.code, message, error, { ...(details === undefined ? {} : { details }), ...(cause === undefined ? {} : { cause }) });
}

/** A cause whose message or own fields (a spawn error's `spawnargs`, an RPC error's `data`) hold a secret is replaced by a plain, redacted one. */
function redactCause(cause: unknown, redactValue: <T>(value: T) => T): unknown {
  if (cause === undefined || cause === null) return cause;
  if (typeof cause !== 'object') return redactValue(cause);
  if (!(cause instanceof Error)) {
    const copy = redactValue(cause);
    return JSON.stringify(copy) === JSON.stringify(cause) ? cause : copy;
  }
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(cause)) fields[key] = (cause as unknown as Record<string, unknown>)[key];
  const message = redactValue(cause.message);
  let clean = message === cause.message;
  if (clean) {
    try {
      clean = JSON.stringify(redactValue(fields)) === JSON.stringify(fields);
    } catch {
      clean = false;
    }
  }
  if (clean) return cause;
  const replacement = new Error(message);
  replacement.name = cause.name;
  return replacement;
}

// The password runs to the authority's last "@", as URL parsers read it: `p@ss` in `https://u:p@ss@host`.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):([^\s/]+)@/gi;

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

/**
 * Numbers, booleans and null, alone or in plain objects and arrays made only of them (a model's
 * `usage: { tokens: { input: 12, output: 30 } }`): counts and flags, with no text a secret could be in.
 */
function isCountOrFlag(value: unknown, depth = 0): boolean {
  if (typeof value === 'number' || typeof value === 'boolean') return true;
  if (depth === 0 && value === null) return false;
  if (value === null) return true;
  if (typeof value !== 'object' || depth >= 4) return false;
  if (Array.isArray(value)) return value.length <= 64 && value.every((item) => isCountOrFlag(item, depth + 1));
  if (!isPlainObject(value)) return false;
  const entries = Object.values(value);
  return entries.length > 0 && entries.length <= 64 && entries.every((item) => isCountOrFlag(item, depth + 1));
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

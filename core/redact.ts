/**
 * The one redactor: everything that leaves the host — errors, events, logs, results, prompts, traces,
 * store rows, terminal output — passes through it. It cuts out the secrets the host holds (declared
 * by each source kind, see `core/secrets.ts`), pieces of them, URL passwords and well-known
 * credential shapes, and the values under keys that name a secret. A cut value is replaced by a
 * marker that says why: `[REDACTED: env GITHUB_TOKEN]`, `[REDACTED: part of header Authorization]`.
 */
import { ToolCallError } from './errors.js';
import { CREDENTIAL_SHAPES, MIN_SECRET_LENGTH, type Secret } from './secrets.js';

/** What replaces the value under a key that names a secret (the key says why). */
export const REDACTED = '[REDACTED]';

/** The marker of a cut secret: `[REDACTED: env GITHUB_TOKEN]`, or `[REDACTED: part of …]` for a piece. */
export function redactionMarker(label: string, part = false): string {
  return `[REDACTED: ${part ? 'part of ' : ''}${label}]`;
}

/** A secret, or a bare value (labelled `configured secret`). */
export type SecretInput = string | Secret;

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

/** Size of the table of gram hashes (a power of two). */
const GRAM_HASHES = 1 << 16;

/** A hash of the {@link GRAM} characters of `text` at `at`, below {@link GRAM_HASHES}. */
function gramHash(text: string, at: number): number {
  let hash = 0;
  for (let index = at; index < at + GRAM; index += 1) hash = (hash * 31 + text.charCodeAt(index)) | 0;
  return hash & (GRAM_HASHES - 1);
}

/** The shortest piece of a strong secret cut wherever it appears. */
const MIN_PIECE = 8;
/** Pieces are found through grams of this length, looked up every `MIN_PIECE - GRAM + 1` characters. */
const GRAM = 4;
const STRIDE = MIN_PIECE - GRAM + 1;

export interface RedactOptions {
  /** Extra key fragments to treat as secrets (same matching as the defaults). */
  keys?: readonly string[];
  /** The secrets the host holds (see `core/secrets.ts`), cut out of every string. */
  secrets?: readonly SecretInput[];
}

/** A redactor with its secrets fixed: call it on any value, or use its text helpers. */
export interface Redactor {
  /** A copy of `value` with secrets cut out of its strings and values under secret-named keys replaced, at any depth. */
  <T>(value: T): T;
  /** `text` with secrets, their pieces, URL passwords and credential shapes cut out. */
  text(text: string): string;
  /** At most about `maxChars` of `text`, redacted *before* it is cut (so no cut leaves a piece of a secret), `…` when cut. */
  excerpt(text: string, maxChars: number): string;
  /** The same error with secrets cut out of its message, details and cause (see {@link redactToolCallError}). */
  error(error: ToolCallError): ToolCallError;
}

/**
 * Returns a copy of `value` where every property whose key looks like a secret is `"[REDACTED]"`, at
 * any depth, inside arrays too, and every string has the known secrets cut out; cycles become
 * `"[Circular]"`. Numbers and booleans under such keys are kept, because they are counts and flags
 * (`maxTokens`, `requiresPassword`), not secrets.
 *
 * @example
 * redact({ headers: { Authorization: 'Bearer x' }, maxTokens: 5 })
 * // → { headers: { Authorization: '[REDACTED]' }, maxTokens: 5 }
 */
export function redact<T>(value: T, options: RedactOptions = {}): T {
  return createRedactor(options)(value);
}

/**
 * `text` with the known `secrets` (and any piece of 8 characters or more of a strong one), URL
 * passwords and well-known credential shapes (`sk-…`, `ghp_…`, JWTs, PEM keys) cut out.
 *
 * @example
 * redactText('bad key sk-live-1234 here', [{ value: 'sk-live-1234', label: 'env API_KEY', strength: 'strong' }])
 * // → 'bad key [REDACTED: env API_KEY] here'
 */
export function redactText(text: string, secrets: readonly SecretInput[] = []): string {
  return cutCredentialShapes(cutUrlPasswords(matcherOf(secrets)(text)));
}

/** Most distinct keys a redactor remembers its verdict for; tool arguments reuse a few names. */
const KEY_CACHE_LIMIT = 10_000;

/** A {@link redact} with its options fixed, remembering which keys are secret: made once, used for every value. */
export function createRedactor(options: RedactOptions = {}): Redactor {
  const fragments = [...DEFAULT_SECRET_KEYS, ...(options.keys ?? []).map(normalizeKey)];
  const cut = matcherOf(options.secrets ?? []);
  const text = (input: string): string => (input.length < MIN_SECRET_LENGTH ? input : cutCredentialShapes(cutUrlPasswords(cut(input))));
  const verdicts = new Map<string, boolean>();
  const secretKey = (key: string): boolean => {
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = isSecretKey(key, fragments);
      if (verdicts.size < KEY_CACHE_LIMIT) verdicts.set(key, verdict);
    }
    return verdict;
  };

  const redactor = <T>(value: T): T => {
    const ancestors = new Set<object>();
    const visit = (current: unknown): unknown => {
      if (typeof current === 'string') return text(current);
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
  const redactValue = redactor as Redactor;
  redactValue.text = text;
  redactValue.excerpt = (input, maxChars) => cutAfterRedacting(text(input), maxChars);
  redactValue.error = (error) => redactToolCallError(error, redactValue);
  return redactValue;
}

/**
 * At most `maxChars` of an already redacted text, then `…`: a cut never splits a marker (it keeps
 * the marker whole), so the reader always sees why something is missing.
 */
function cutAfterRedacting(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = Math.max(0, maxChars);
  const open = text.lastIndexOf('[REDACTED', end - 1);
  if (open !== -1) {
    const close = text.indexOf(']', open);
    if (close >= end) end = close + 1;
  }
  return end >= text.length ? text : `${text.slice(0, end)}…`;
}

/**
 * The same error with secrets cut out of its message, its details (which cross into the sandbox) and
 * its cause (which a host log may print); the error itself when nothing needed cutting.
 */
export function redactToolCallError(error: ToolCallError, redactValue: <T>(value: T) => T): ToolCallError {
  const message = redactValue(error.message);
  const details = error.details === undefined ? undefined : redactValue(error.details);
  const cause = redactCause(error.cause, redactValue);
  if (message === error.message && cause === error.cause && JSON.stringify(details) === JSON.stringify(error.details)) return error;
  return new ToolCallError(error.code, message, error, {
    ...(details === undefined ? {} : { details }),
    ...(cause === undefined ? {} : { cause }),
  });
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
const URL_PASSWORD_MARKER = redactionMarker('URL password');

function cutUrlPasswords(text: string): string {
  return text.includes('@')
    ? text.replace(URL_USERINFO, (match, before: string, password: string) =>
        password === URL_PASSWORD_MARKER ? match : `${before}:${URL_PASSWORD_MARKER}@`,
      )
    : text;
}

const BEARER = /\b(Bearer\s+)([A-Za-z0-9._~+/=-]{16,})/gi;

function cutCredentialShapes(text: string): string {
  if (text.length < 16) return text;
  let result = text.replace(BEARER, (_match, prefix: string) => `${prefix}${redactionMarker('bearer token')}`);
  for (const { pattern, label } of CREDENTIAL_SHAPES) result = result.replace(pattern, redactionMarker(label));
  return result;
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

// ── Matching known secret values ────────────────────────────────────────────────────────────────

interface Span {
  start: number;
  end: number;
  label: string;
  part: boolean;
}

const matchers = new WeakMap<readonly SecretInput[], (text: string) => string>();

/** The matcher of one secrets array, built once (the array is the cache key). */
function matcherOf(secrets: readonly SecretInput[]): (text: string) => string {
  let matcher = matchers.get(secrets);
  if (matcher === undefined) {
    matcher = createMatcher(secrets);
    matchers.set(secrets, matcher);
  }
  return matcher;
}

/** Each secret as written, JSON-escaped and URL-encoded (an echoed copy is often one of these), usable ones only, first label wins. */
function expand(secrets: readonly SecretInput[]): Secret[] {
  const byValue = new Map<string, Secret>();
  for (const input of secrets) {
    const secret: Secret = typeof input === 'string' ? { value: input, label: 'configured secret', strength: 'strong' } : input;
    for (const value of [secret.value, JSON.stringify(secret.value).slice(1, -1), encodeURIComponent(secret.value)]) {
      if (value.length < MIN_SECRET_LENGTH) continue;
      const existing = byValue.get(value);
      if (existing === undefined || (existing.strength === 'weak' && secret.strength === 'strong'))
        byValue.set(value, { ...secret, value });
    }
  }
  return [...byValue.values()];
}

function createMatcher(inputs: readonly SecretInput[]): (text: string) => string {
  const secrets = expand(inputs);
  if (secrets.length === 0) return (text) => text;
  // Longest first: alternation takes the first branch that matches, so a secret containing another is cut whole.
  const ordered = [...secrets].sort((a, b) => b.value.length - a.value.length);
  const labels = new Map(ordered.map((secret) => [secret.value, secret.label]));
  const branches = ordered.map(({ value }) => {
    const escaped = value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    // Short values are cut only where they stand alone: `abc1` in `key=abc1;`, not in `abc123`.
    return value.length >= MIN_PIECE ? escaped : `(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`;
  });
  const whole = new RegExp(branches.join('|'), 'gu');
  const strong = ordered.filter((secret) => secret.strength === 'strong' && secret.value.length >= MIN_PIECE);
  const boundary = boundaryPiecesOf(strong);
  const grams = new Map<string, { secret: Secret; offset: number }[]>();
  const gramHashes = new Uint8Array(GRAM_HASHES);
  for (const secret of strong) {
    for (let offset = 0; offset + GRAM <= secret.value.length; offset += 1) {
      const gram = secret.value.slice(offset, offset + GRAM);
      gramHashes[gramHash(gram, 0)] = 1;
      const list = grams.get(gram);
      if (list === undefined) grams.set(gram, [{ secret, offset }]);
      else list.push({ secret, offset });
    }
  }
  // Pieces of strong secrets are as short as 4 characters (at a text's start or end).
  const shortest = strong.length > 0 ? MIN_SECRET_LENGTH : (ordered[ordered.length - 1]?.value.length ?? 0);

  return (text) => {
    if (text.length < shortest) return text;
    const spans: Span[] = [];
    for (const match of text.matchAll(whole)) {
      spans.push({ start: match.index, end: match.index + match[0].length, label: labels.get(match[0]) ?? 'secret', part: false });
    }
    if (grams.size > 0) findPieces(text, grams, gramHashes, spans);
    const cuts = cutMarks(text);
    if (boundary.prefixes.size + boundary.suffixes.size > 0) findBoundaryPieces(text, boundary, cuts, spans);
    return spans.length === 0 ? text : replaceSpans(text, spans);
  };
}

/**
 * Pieces of 8 characters or more of a strong secret: any such piece holds a gram starting at a
 * multiple of {@link STRIDE}, so only those positions are looked up; each hit is extended both ways
 * along the secret.
 */
function findPieces(text: string, grams: Map<string, { secret: Secret; offset: number }[]>, gramHashes: Uint8Array, spans: Span[]): void {
  let covered = 0;
  for (let position = 0; position + GRAM <= text.length; position += STRIDE) {
    // Most positions hold no gram of any secret: a table of their hashes says so without a lookup.
    if (position < covered || gramHashes[gramHash(text, position)] === 0) continue;
    const hits = grams.get(text.slice(position, position + GRAM));
    if (hits === undefined) continue;
    for (const { secret, offset } of hits) {
      let start = position;
      let at = offset;
      while (start > 0 && at > 0 && text[start - 1] === secret.value[at - 1]) {
        start -= 1;
        at -= 1;
      }
      let end = position + GRAM;
      let to = offset + GRAM;
      while (end < text.length && to < secret.value.length && text[end] === secret.value[to]) {
        end += 1;
        to += 1;
      }
      if (end - start < MIN_PIECE || (end - start < secret.value.length && !isTellingPiece(text.slice(start, end)))) continue;
      spans.push({ start, end, label: secret.label, part: end - start < secret.value.length });
      covered = Math.max(covered, end);
    }
  }
}

/** The telling prefixes and suffixes (4 to 7 characters) of the strong secrets, with their labels. */
interface BoundaryPieces {
  prefixes: Map<string, string>;
  suffixes: Map<string, string>;
}

function boundaryPiecesOf(strong: readonly Secret[]): BoundaryPieces {
  const pieces: BoundaryPieces = { prefixes: new Map(), suffixes: new Map() };
  for (const secret of strong) {
    for (let length = MIN_SECRET_LENGTH; length < MIN_PIECE; length += 1) {
      const prefix = secret.value.slice(0, length);
      const suffix = secret.value.slice(secret.value.length - length);
      if (isTellingPiece(prefix) && !pieces.prefixes.has(prefix)) pieces.prefixes.set(prefix, secret.label);
      if (isTellingPiece(suffix) && !pieces.suffixes.has(suffix)) pieces.suffixes.set(suffix, secret.label);
    }
  }
  return pieces;
}

/**
 * A shorter piece (4 to 7 characters) of a strong secret where something cut it: a prefix of it where
 * a text ends or just before a `…`, a suffix where a text starts or just after one.
 */
function findBoundaryPieces(text: string, pieces: BoundaryPieces, cuts: readonly number[], spans: Span[]): void {
  for (const cut of [text.length, ...cuts]) {
    for (let length = Math.min(MIN_PIECE - 1, cut); length >= MIN_SECRET_LENGTH; length -= 1) {
      const label = pieces.prefixes.get(text.slice(cut - length, cut));
      if (label !== undefined) {
        spans.push({ start: cut - length, end: cut, label, part: true });
        break;
      }
    }
  }
  for (const cut of [0, ...cuts.map((at) => at + 1)]) {
    for (let length = Math.min(MIN_PIECE - 1, text.length - cut); length >= MIN_SECRET_LENGTH; length -= 1) {
      const label = pieces.suffixes.get(text.slice(cut, cut + length));
      if (label !== undefined) {
        spans.push({ start: cut, end: cut + length, label, part: true });
        break;
      }
    }
  }
}

/**
 * Whether a piece of a secret says something about it: it holds a digit or mixes cases (as nearly
 * every piece of a random key does), or is 12 characters or more. A piece that is an everyday word
 * (`stations` of `stations-env-secret-77f3a1`) is left in the text.
 */
function isTellingPiece(piece: string): boolean {
  return piece.length >= 12 || /\d/.test(piece) || (/[a-z]/.test(piece.slice(1)) && /[A-Z]/.test(piece.slice(1)));
}

/** Where a text says it was cut (`…`). */
function cutMarks(text: string): number[] {
  const marks: number[] = [];
  for (let at = text.indexOf('…'); at !== -1 && marks.length < 64; at = text.indexOf('…', at + 1)) marks.push(at);
  return marks;
}

/** `text` with each span (overlapping ones merged, a whole secret's label winning) replaced by its marker. */
function replaceSpans(text: string, spans: Span[]): string {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  let result = '';
  let at = 0;
  let current: Span | undefined;
  const flush = (): void => {
    if (current === undefined) return;
    result += text.slice(at, current.start) + redactionMarker(current.label, current.part);
    at = current.end;
  };
  for (const span of spans) {
    if (current !== undefined && span.start < current.end) {
      if (span.end > current.end) current.end = span.end;
      if (!span.part && current.part) current = { ...current, label: span.label, part: false };
      continue;
    }
    flush();
    current = { ...span };
  }
  flush();
  return result + text.slice(at);
}

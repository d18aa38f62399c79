/**
 * What counts as a secret. Each kind of capability source declares the secrets of its configuration
 * with these helpers (`sources/capability-source.ts`: `secrets(config)`), and the one redactor
 * (`core/redact.ts`) cuts them out of everything that leaves the host. The rules live here, once:
 *
 * - env values under a name that says secret (`GITHUB_TOKEN`, `DB_PASSWORD`, `LEAKY_PIN`), and any
 *   env value that looks like a credential; not paths, not everyday words (`prod`, `names`, `info`);
 * - header values (and the credential after `Bearer`/`Basic`/`Token`/`Bot`), except a few standard
 *   headers that never carry one (`Accept`, `Content-Type`, `User-Agent`);
 * - a URL's user name, password and query values (a query value under a neutral name only when it
 *   looks like a credential or is long enough to be one);
 * - a command argument that follows a flag naming a key, token, secret or password (`--api-key X`,
 *   `--token=X`), a URL argument's credentials, and any argument that looks like a credential; not
 *   paths, not package names, not other flags.
 */

/** One secret value and why it is one (shown in the marker that replaces it: `[REDACTED: env GITHUB_TOKEN]`). */
export interface Secret {
  value: string;
  /** Why this value is a secret, in a few words: `env GITHUB_TOKEN`, `header Authorization`, `arg --api-key`. */
  label: string;
  /**
   * `strong`: a credential; any piece of 8 characters or more of it is cut too, and a shorter piece
   * at the start or end of a text (where something cut it). `weak`: cut only whole (a header value of
   * plain words, which is private but whose pieces are everyday text).
   */
  strength: 'strong' | 'weak';
}

/** Values shorter than this are never secrets: cutting them would mangle ordinary text. */
export const MIN_SECRET_LENGTH = 4;

/** Words in a name (env variable, flag, header, query key) that say its value is a secret. */
const SECRET_NAME_WORDS = new Set([
  'token',
  'tokens',
  'key',
  'keys',
  'apikey',
  'secret',
  'secrets',
  'password',
  'passwd',
  'passphrase',
  'pass',
  'pwd',
  'pin',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'cookie',
  'session',
  'private',
  'privatekey',
  'signature',
  'sig',
  'bearer',
  'jwt',
  'dsn',
]);

/** Header names whose values describe the request, never authenticate it. */
const PLAIN_HEADERS = new Set([
  'accept',
  'accept-language',
  'accept-encoding',
  'content-type',
  'user-agent',
  'mcp-protocol-version',
  'cache-control',
]);

/** Configuration words that are never secrets, whatever name they stand under. */
const NOT_SECRETS = new Set(['true', 'false', 'null', 'none', 'undefined', 'yes', 'on', 'off']);

/** Whether a name (`GITHUB_TOKEN`, `--api-key`, `X-Api-Key`, `apiKey`, `access_token`) says its value is a secret. */
export function namesSecret(name: string): boolean {
  const words = name
    .replace(/^-+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  if (words.some((word) => SECRET_NAME_WORDS.has(word))) return true;
  const joined = words.join('');
  return /apikey|accesskey|secretkey|privatekey|authtoken|password|passphrase|credential/.test(joined);
}

/** Well-known credential shapes, with the label a match is shown with. Shared with the redactor, which cuts them out of any text. */
export const CREDENTIAL_SHAPES: readonly { pattern: RegExp; label: string }[] = [
  { pattern: /\bsk-[A-Za-z0-9_-]{16,}/g, label: 'API key (sk-…)' },
  { pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g, label: 'GitHub token' },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, label: 'GitHub token' },
  { pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, label: 'GitLab token' },
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, label: 'Slack token' },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, label: 'AWS access key id' },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, label: 'Google API key' },
  { pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, label: 'npm token' },
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, label: 'JWT' },
  { pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, label: 'private key' },
];

/**
 * Whether a value looks like a credential: a well-known shape (`sk-…`, `ghp_…`, `xoxb-…`, `AKIA…`, a
 * JWT), or a random-looking token — at least 12 characters of the token alphabet (no spaces, no `:`,
 * no `@`), letters and digits mixed (three or more letter/digit alternations, or upper case, lower
 * case and digits in 20 characters or more). Paths (`/home/me/data`, `./x`, `src/a.ts`), package
 * names (`@scope/name`, `server-filesystem`) and words are not.
 */
export function looksLikeCredential(value: string): boolean {
  if (CREDENTIAL_SHAPES.some(({ pattern }) => new RegExp(`^(?:${pattern.source})$`, pattern.flags.replace('g', '')).test(value)))
    return true;
  if (value.length < 12 || !/^[A-Za-z0-9_\-+/=.~]+$/.test(value)) return false;
  if (/^[./~]/.test(value) || (value.includes('/') && value.includes('.'))) return false;
  if (!/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return false;
  let alternations = 0;
  for (let index = 1; index < value.length; index += 1) {
    const before = value.charCodeAt(index - 1);
    const after = value.charCodeAt(index);
    if ((isDigit(before) && isLetter(after)) || (isLetter(before) && isDigit(after))) alternations += 1;
  }
  if (alternations >= 3) return true;
  return value.length >= 20 && /[a-z]/.test(value) && /[A-Z]/.test(value);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isUsable(value: string): boolean {
  return value.length >= MIN_SECRET_LENGTH && !NOT_SECRETS.has(value.toLowerCase());
}

/** A value under a name: a secret when the name says so, or the value looks like a credential. */
function secretUnderName(name: string, value: string, label: string): Secret[] {
  if (!isUsable(value)) return [];
  if (namesSecret(name) || looksLikeCredential(value)) return [{ value, label, strength: 'strong' }];
  return [];
}

/** The secrets among env values: see the module's rules. A URL value gives its credentials. */
export function secretsOfEnv(env: Record<string, string> | undefined): Secret[] {
  const secrets: Secret[] = [];
  for (const [name, value] of Object.entries(env ?? {})) {
    const label = `env ${name}`;
    if (isUrl(value)) secrets.push(...secretsOfUrl(value, label));
    if (!isUrl(value) || namesSecret(name)) secrets.push(...secretUnderName(name, value, label));
  }
  return secrets;
}

/** Each header value, and the credential after `Bearer`/`Basic`/`Token`/`Bot`; not the values of plain headers (`Accept`). */
export function secretsOfHeaders(headers: Record<string, string> | undefined): Secret[] {
  const secrets: Secret[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (PLAIN_HEADERS.has(name.toLowerCase()) || !isUsable(value.trim())) continue;
    const label = `header ${name}`;
    const scheme = /^(?:Bearer|Basic|Token|Bot)\s+(\S+)$/i.exec(value.trim());
    if (scheme?.[1] !== undefined) {
      if (isUsable(scheme[1])) secrets.push({ value: scheme[1], label, strength: 'strong' });
      secrets.push({ value: value.trim(), label, strength: 'weak' });
    } else {
      secrets.push({ value: value.trim(), label, strength: namesSecret(name) || looksLikeCredential(value.trim()) ? 'strong' : 'weak' });
    }
  }
  return secrets;
}

/**
 * The user name, password and query values of a URL: nothing for a path or a text that is no URL.
 * `where` says whose URL it is in the label (`URL password of <where>`).
 */
export function secretsOfUrl(text: string, where = 'URL'): Secret[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const secrets: Secret[] = [];
  const add = (value: string, label: string): void => {
    if (isUsable(value)) secrets.push({ value, label, strength: 'strong' });
    const decoded = safeDecode(value);
    if (decoded !== value && isUsable(decoded)) secrets.push({ value: decoded, label, strength: 'strong' });
  };
  if (url.username !== '') add(url.username, `${where} user name`);
  if (url.password !== '') add(url.password, `${where} password`);
  for (const part of url.search.slice(1).split('&')) {
    const equals = part.indexOf('=');
    if (equals <= 0) continue;
    const name = safeDecode(part.slice(0, equals).replace(/\+/g, ' '));
    const raw = part.slice(equals + 1);
    const value = safeDecode(raw.replace(/\+/g, ' '));
    if (!isUsable(value) || !(namesSecret(name) || looksLikeCredential(value) || value.length >= 16)) continue;
    const label = `${where} query ${name}`;
    secrets.push({ value, label, strength: 'strong' });
    if (raw !== value) secrets.push({ value: raw, label, strength: 'strong' });
  }
  return secrets;
}

/**
 * The secrets among a command's arguments: the value after a flag that names a secret (`--api-key X`,
 * `--token=X`), a URL argument's credentials, and any argument (or `--flag=value` value) that looks
 * like a credential. Paths, package names and other flags are not secrets.
 */
export function secretsOfArgs(args: readonly string[] | undefined): Secret[] {
  const secrets: Secret[] = [];
  const list = args ?? [];
  for (let index = 0; index < list.length; index += 1) {
    const arg = list[index] as string;
    const flag = /^(--?[A-Za-z][\w.-]*)(?:=(.*))?$/s.exec(arg);
    if (flag !== null) {
      const [, name = '', inline] = flag;
      if (inline !== undefined) secrets.push(...secretsOfArgValue(name, inline));
      else if (namesSecret(name) && index + 1 < list.length && !(list[index + 1] as string).startsWith('-')) {
        index += 1;
        secrets.push(...secretsOfArgValue(name, list[index] as string));
      }
      continue;
    }
    secrets.push(...secretsOfArgValue(undefined, arg));
  }
  return secrets;
}

function secretsOfArgValue(flag: string | undefined, value: string): Secret[] {
  const label = flag === undefined ? 'credential-like argument' : `arg ${flag}`;
  const fromUrl = isUrl(value) ? secretsOfUrl(value, flag === undefined ? 'URL argument' : `URL of ${flag}`) : [];
  if (!isUsable(value)) return fromUrl;
  if ((flag !== undefined && namesSecret(flag)) || looksLikeCredential(value)) return [...fromUrl, { value, label, strength: 'strong' }];
  return fromUrl;
}

function isUrl(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

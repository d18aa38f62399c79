import type { McpServerConfig, ModelConfig, OpenApiConfig, ResolvedConfig } from './schema.js';

/** What replaces a secret cut out of text. */
export const REDACTED = '[REDACTED]';

/**
 * Every secret the host holds, to be cut out of whatever leaves it (errors, events, prompts, traces,
 * terminal output): everything in each configured MCP server's configuration (see
 * {@link secretsOfServer}), each OpenAPI service's headers and spec URL ({@link secretsOfApi}), the model's API key from the config, and `OPENAI_API_KEY` from `env`.
 */
export function serverSecrets(
  config: Pick<ResolvedConfig, 'mcpServers' | 'openapi'> & { model?: ModelConfig },
  env: Record<string, string | undefined> = process.env,
): string[] {
  const values = [...Object.values(config.mcpServers).flatMap(secretsOfServer), ...Object.values(config.openapi ?? {}).flatMap(secretsOfApi)];
  for (const key of [config.model?.apiKey, env.OPENAI_API_KEY]) if (key !== undefined) values.push(...variantsOf(key));
  return [...new Set(values)].filter(isUsableSecret);
}

/**
 * The secrets in one server's configuration: each command argument (and the value of a
 * `--flag=value` one; bare flags such as `-y` or `--stdio` are not secrets), each env value, each
 * header value (and the credential after `Bearer`/`Basic`), and the user name, password and query
 * values of its URL. Each also as it appears JSON- or URL-encoded, so an echoed copy is cut too.
 */
export function secretsOfServer(server: McpServerConfig): string[] {
  const values: string[] = [];
  const add = (value: string | undefined): void => {
    if (value !== undefined && value !== '') values.push(...variantsOf(value));
  };
  if ('command' in server) {
    for (const arg of server.args ?? []) {
      if (/^--?[A-Za-z][\w-]*$/.test(arg)) continue;
      add(arg);
      const equals = arg.startsWith('-') ? arg.indexOf('=') : -1;
      if (equals > 0) add(arg.slice(equals + 1));
    }
    for (const value of Object.values(server.env ?? {})) add(value);
  } else {
    values.push(...secretsOfHeaders(server.headers), ...secretsOfUrl(server.url));
  }
  return [...new Set(values)].filter(isUsableSecret);
}

/** The secrets of one OpenAPI service: its header values and what its spec and base URLs carry. */
export function secretsOfApi(api: OpenApiConfig): string[] {
  const values = [...secretsOfHeaders(api.headers), ...secretsOfUrl(api.spec), ...(api.baseUrl === undefined ? [] : secretsOfUrl(api.baseUrl))];
  return [...new Set(values)].filter(isUsableSecret);
}

/** Each header value, and the credential after `Bearer`/`Basic`/`Token`/`Bot`. */
function secretsOfHeaders(headers: Record<string, string> | undefined): string[] {
  const values: string[] = [];
  for (const value of Object.values(headers ?? {})) {
    if (value !== '') values.push(...variantsOf(value));
    const scheme = /^(?:Bearer|Basic|Token|Bot)\s+(\S+)$/i.exec(value.trim());
    if (scheme?.[1]) values.push(...variantsOf(scheme[1]));
  }
  return values;
}

/** The user name, password and query values of a URL (nothing for a path or a bad URL). */
function secretsOfUrl(text: string): string[] {
  const values: string[] = [];
  const add = (value: string | undefined): void => {
    if (value !== undefined && value !== '') values.push(...variantsOf(value));
  };
  try {
    const url = new URL(text);
    add(url.username);
    add(url.password);
    add(safeDecode(url.username));
    add(safeDecode(url.password));
    if (url.search.length > 1) add(url.search.slice(1));
    for (const [, value] of url.searchParams) add(value);
    for (const part of url.search.slice(1).split('&')) add(part.slice(part.indexOf('=') + 1));
  } catch {
    // A spec path, or a URL the config schema has checked already.
  }
  return values;
}

/** Values shorter than this are never cut: doing so would mangle ordinary text. */
const MIN_SECRET_LENGTH = 3;
/** Values shorter than this are cut only where they stand alone, not inside longer words. */
const MIN_ANYWHERE_LENGTH = 8;
/** Configuration words that are not secrets, however short values are treated. */
const NOT_SECRETS = new Set(['true', 'false', 'null', 'none', 'yes', 'on', 'off']);

function isUsableSecret(value: string): boolean {
  return value.length >= MIN_SECRET_LENGTH && !NOT_SECRETS.has(value.toLowerCase());
}

function variantsOf(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  return [value, json, encodeURIComponent(value)];
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const cutters = new WeakMap<readonly string[], (text: string) => string>();

/**
 * Replaces every known secret value in `text` with `"[REDACTED]"`. Values of 8 characters or more are
 * cut wherever they appear; shorter ones (3 to 7 characters) only where no letter or digit touches them,
 * so a short env value such as `abc1` is cut from `key=abc1;` but not from `abc123`; values under 3
 * characters are left alone. The matcher is built once per secrets array.
 *
 * @example
 * redactSecrets('bad key sk-live-1234 for abc1', ['sk-live-1234', 'abc1']) // → 'bad key [REDACTED] for [REDACTED]'
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || text === '') return text;
  let cut = cutters.get(secrets);
  if (cut === undefined) {
    cut = createSecretCutter(secrets);
    cutters.set(secrets, cut);
  }
  return cut(text);
}

function createSecretCutter(secrets: readonly string[]): (text: string) => string {
  // Longest first: alternation takes the first branch that matches, so a secret containing another is cut whole.
  const usable = [...new Set(secrets)].filter(isUsableSecret).sort((a, b) => b.length - a.length);
  if (usable.length === 0) return (text) => text;
  const branches = usable.map((secret) => {
    const escaped = secret.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    return secret.length >= MIN_ANYWHERE_LENGTH ? escaped : `(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`;
  });
  const pattern = new RegExp(branches.join('|'), 'gu');
  const shortest = usable[usable.length - 1]?.length ?? 0;
  return (text) => (text.length < shortest ? text : text.replace(pattern, REDACTED));
}

/**
 * The host half of `URL` inside the isolate: the WHATWG URL parser is Node's own (exact, and far
 * smaller than a JavaScript copy in every isolate), reached through one synchronous callback that
 * takes strings and returns a string. Nothing else crosses: no object of either side, no reference.
 * Inputs and results are size-capped so a program cannot make the host parse or copy huge texts.
 */

export const URL_LIMITS = Object.freeze({
  /** Characters of one input (the URL, its base, or a value given to a setter); the isolate refuses longer ones first. */
  maxInputChars: 1024 * 1024,
  /** Characters of a resulting `href` (percent-encoding can make it up to 9× its input). */
  maxHrefChars: 4 * 1024 * 1024,
});

/** What the callback returns when the input is not a URL (the isolate throws `TypeError: Invalid URL`). */
export const URL_INVALID = 'invalid';
/** What it returns when an input or the result is past {@link URL_LIMITS}. */
export const URL_TOO_LONG = 'too-long';

/** The properties a setter may change (`href` included), as the isolate names them. */
const SETTABLE = new Set(['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']);

/**
 * The callback's body. `parse`: `a` is the input, `b` the base or `undefined`. `set`: `a` is the
 * current href, `b` the property, `c` the new value. Returns the URL's components as JSON text, or
 * {@link URL_INVALID} / {@link URL_TOO_LONG}.
 */
export function sandboxUrlOperation(operation: unknown, a: unknown, b: unknown, c: unknown): string {
  // A setter's `a` is the URL's current href, which may be as long as an href may be.
  const first = operation === 'set' ? URL_LIMITS.maxHrefChars : URL_LIMITS.maxInputChars;
  if (
    !isText(a, first) ||
    (b !== undefined && !isText(b, URL_LIMITS.maxInputChars)) ||
    (c !== undefined && !isText(c, URL_LIMITS.maxInputChars))
  )
    return URL_TOO_LONG;
  let url: URL;
  try {
    if (operation === 'parse') {
      url = new URL(a, b);
    } else if (operation === 'set' && typeof b === 'string' && SETTABLE.has(b) && typeof c === 'string') {
      url = new URL(a);
      // A setter ignores a value it cannot use (WHATWG), except href, which throws on an invalid URL.
      (url as unknown as Record<string, string>)[b] = c;
    } else {
      return URL_INVALID;
    }
  } catch {
    return URL_INVALID;
  }
  if (url.href.length > URL_LIMITS.maxHrefChars) return URL_TOO_LONG;
  return JSON.stringify([
    url.href,
    url.origin,
    url.protocol,
    url.username,
    url.password,
    url.host,
    url.hostname,
    url.port,
    url.pathname,
    url.search,
    url.hash,
  ]);
}

function isText(value: unknown, maxChars: number): value is string {
  return typeof value === 'string' && value.length <= maxChars;
}

// The HTTP policy every host-side HTTP client shares (std http, OpenAPI calls): which hosts it may
// reach, how many redirects it follows, which headers never cross to another origin.

/** The most redirects one request follows (std http, OpenAPI calls). */
export const MAX_REDIRECTS = 5;

/** Header names that carry credentials: the standard ones and the usual API-key spellings. */
const CREDENTIAL_HEADER = /auth|cookie|token|secret|key|password|session|credential/i;

/** Whether a header of this name carries credentials, which are never sent on to another origin. */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADER.test(name);
}

/**
 * Whether a URL's host is in an allow-list. Entries: `example.com` (that host, any port),
 * `example.com:8080` (that host and port), `*.example.com` (any subdomain, not the bare domain).
 * Comparison is case-insensitive.
 */
export function isHostAllowed(url: URL, allowHosts: readonly string[]): boolean {
  const hostname = url.hostname.toLowerCase();
  const host = url.host.toLowerCase();
  return allowHosts.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry.startsWith('*.')) return hostname.endsWith(entry.slice(1)) && hostname.length > entry.length - 1;
    return entry.includes(':') && !entry.startsWith('[') ? entry === host : entry === hostname || entry === host;
  });
}

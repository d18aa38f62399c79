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

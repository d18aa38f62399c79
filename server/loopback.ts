// Whether an address means "this machine only", decided by parsing, never by comparing strings: a
// loopback check that knows "127.0.0.1" but not "127.1", "0x7f.1" or "0:0:0:0:0:0:0:1" lets a server
// bind every interface while believing it is local.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Node parses both families itself, including IPv4-mapped IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`).
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether an IP address literal is a loopback address: all of 127.0.0.0/8, `::1`, and IPv4-mapped
 * 127.0.0.0/8, in any spelling `net.isIP` accepts (a zone id is ignored). Names and non-addresses are false.
 */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return false;
  return LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Whether the host name of a request (from its `Host` or `Origin`) names this machine. The name is put
 * through the URL parser first, as a browser does, so `127.1`, `0x7f.1`, `2130706433` and
 * `[0:0:0:0:0:0:0:1]` are addresses like any other. Of names, only `localhost` counts: browsers answer it
 * without DNS, while any other name could be rebound to 127.0.0.1 by its owner, so it is never resolved.
 */
export function isLoopbackHostname(hostname: string): boolean {
  let parsed: string;
  try {
    parsed = new URL(`http://${hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname}/`).hostname;
  } catch {
    return false;
  }
  if (parsed === 'localhost' || parsed === 'localhost.') return true;
  return isLoopbackAddress(parsed.startsWith('[') ? parsed.slice(1, -1) : parsed);
}

export interface BindAddress {
  /** The IP address to listen on (`undefined`: every interface). */
  address: string | undefined;
  loopback: boolean;
}

/**
 * Resolves the host a server is asked to bind, the way `listen` would (an address literal as is,
 * anything else — `localhost`, `127.1`, `0x7f.1` — through the system resolver), and says whether it
 * is loopback. A name is loopback only when every address it resolves to is. Bind to `address`, not to
 * the name, so what was checked is what gets bound.
 */
export async function resolveBindAddress(host: string): Promise<BindAddress> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === '') return { address: undefined, loopback: false };
  if (isIP(bare.replace(/%.*$/, '')) !== 0) return { address: bare, loopback: isLoopbackAddress(bare) };
  const resolved = await lookup(bare, { all: true });
  const first = resolved[0];
  if (!first) throw new Error(`"${host}" resolves to no address`);
  return { address: first.address, loopback: resolved.every((entry) => isLoopbackAddress(entry.address)) };
}

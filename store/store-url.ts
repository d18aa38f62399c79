import { ConfigError } from '../core/index.js';

/** The environment variable naming the store when neither `--store` nor the config does. */
export const STORE_ENV = 'AGENT_SPACES_STORE';

/**
 * The store's PostgreSQL URL: `--store`, else the config's `store`, else `$AGENT_SPACES_STORE`;
 * `undefined` means no store (everything in this process's memory, as always).
 */
export function resolveStoreUrl(sources: {
  option?: string;
  config?: string;
  env?: Record<string, string | undefined>;
}): string | undefined {
  const url = sources.option ?? sources.config ?? (sources.env ?? process.env)[STORE_ENV];
  if (url === undefined || url === '') return undefined;
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError(`the store must be a PostgreSQL URL (postgres://user:password@host:5432/database), got "${describeStore(url)}"`, [
      { path: 'store', message: 'must start with postgres:// or postgresql://' },
    ]);
  }
  return url;
}

/**
 * The user info of a URL as PostgreSQL's URL parser reads it (WHATWG rules): up to the authority's
 * *last* "@", so a password may itself hold "@" (`postgres://app:open@sesame@db/x` sends "open@sesame").
 */
const USER_INFO = /^([a-z]+:\/\/[^:/@]*):[^/?#]*@/i;
/** A password holding "/", "?" or "#" (no parser takes it unencoded, but it is still someone's password). */
const LOOSE_USER_INFO = /^([a-z]+:\/\/[^:/@]*):[^@]*@/i;

/** The store's URL without its password (in the user part, even with no user name, or as a `password=` parameter), for messages. */
export function describeStore(url: string): string {
  const userInfo = USER_INFO.test(url) ? USER_INFO : LOOSE_USER_INFO.test(url) ? LOOSE_USER_INFO : undefined;
  const masked = userInfo ? url.replace(userInfo, '$1:***@') : hideUnreadableCredentials(url);
  return masked.replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1***');
}

/**
 * A store text that is no URL we can read (`user:secret@host/db`, `postgres//…`: a typo in
 * $AGENT_SPACES_STORE, quoted by the error that refuses it): when what comes before its last "@" holds a
 * ":" (a password's separator), all of that is hidden.
 */
function hideUnreadableCredentials(text: string): string {
  const at = text.lastIndexOf('@');
  if (
    at < 0 ||
    !text
      .slice(0, at)
      .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
      .includes(':')
  )
    return text;
  return `***@${text.slice(at + 1)}`;
}

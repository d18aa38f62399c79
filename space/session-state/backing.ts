// What keeps session state: the space's memory by default, the store's PostgreSQL when one is
// configured (store/session-state.ts implements the same shape; store/ and space/ do not import each
// other, the composition roots — serve, the worker — hand the store's view to the space).

/** The limits of one scope, from the config's `session` section. */
export interface SessionLimits {
  /** Most UTF-8 bytes of keys and values (their JSON) one scope holds. */
  maxBytes: number;
  /** Most keys one scope holds. */
  maxKeys: number;
  /** How long a key lives after it was last set, in milliseconds. */
  ttlMs: number;
}

/** One key of a scope, as `list` shows it. */
export interface SessionEntry {
  key: string;
  /** UTF-8 bytes of the value's JSON. */
  bytes: number;
  /** ISO time of the last `set`. */
  updatedAt: string;
  /** ISO time the key expires (unless set again). */
  expiresAt: string;
}

/** What a `set` did: stored (with the scope's use after it), or refused by a limit (nothing changed). */
export type SessionSetOutcome =
  | { stored: true; usedBytes: number; keys: number; expiresAt: string }
  | { stored: false; limit: 'maxBytes' | 'maxKeys'; usedBytes: number; keys: number };

/**
 * A keeper of session state. Every method takes the scope the host gave the run; `now` is the host's
 * clock in milliseconds (expired keys are neither read, listed nor counted against the quota). `set`
 * checks the quota and writes in one step: two runs of one scope setting at once cannot both pass it.
 */
export interface SessionStateBacking {
  /** Where the state lives, for messages: `memory`, `the store postgres://…`. */
  readonly location: string;
  /** The value's JSON text, or undefined when the key is absent or expired. */
  get(scope: string, key: string, now: number): Promise<string | undefined>;
  set(scope: string, key: string, json: string, limits: SessionLimits, now: number): Promise<SessionSetOutcome>;
  /** Whether a live key was deleted. */
  delete(scope: string, key: string, now: number): Promise<boolean>;
  /** The live keys starting with `prefix` ('' = all), in key order. */
  list(scope: string, prefix: string, now: number): Promise<SessionEntry[]>;
  /** Deletes every expired key (of every scope); resolves to how many. */
  prune(now: number): Promise<number>;
}

/** UTF-8 bytes a key and its value's JSON count against a scope's `maxBytes`. */
export function entryBytes(key: string, json: string): number {
  return Buffer.byteLength(key, 'utf8') + Buffer.byteLength(json, 'utf8');
}

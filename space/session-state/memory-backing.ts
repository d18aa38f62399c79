import { entryBytes, type SessionEntry, type SessionStateBacking } from './backing.js';

interface MemoryEntry {
  json: string;
  /** Key and value bytes together (what counts against the quota). */
  bytes: number;
  updatedAt: number;
  expiresAt: number;
}

/**
 * Session state in this process's memory: the default, gone when the process ends. Expired keys are
 * dropped from a scope whenever it is touched, and from every scope by `prune` (the space prunes when
 * a `set` finds the last prune more than a TTL ago), so a scope nobody uses again does not stay.
 */
export function createMemorySessionState(): SessionStateBacking {
  const scopes = new Map<string, Map<string, MemoryEntry>>();
  let lastSweep = Number.NEGATIVE_INFINITY;
  const sweep = (now: number): number => {
    lastSweep = now;
    let pruned = 0;
    for (const [scope, entries] of scopes) {
      const before = entries.size;
      live(scope, now);
      pruned += before - entries.size;
    }
    return pruned;
  };

  /** The scope's live keys (expired ones removed first); undefined when it has none. */
  const live = (scope: string, now: number): Map<string, MemoryEntry> | undefined => {
    const entries = scopes.get(scope);
    if (entries === undefined) return undefined;
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
    if (entries.size === 0) scopes.delete(scope);
    return entries.size === 0 ? undefined : entries;
  };

  return {
    location: 'memory',
    async get(scope, key, now) {
      return live(scope, now)?.get(key)?.json;
    },
    async set(scope, key, json, limits, now) {
      // Scopes nobody touches again lose their expired keys at most a TTL after they expired.
      if (now - lastSweep > limits.ttlMs) sweep(now);
      const entries = live(scope, now) ?? new Map<string, MemoryEntry>();
      const bytes = entryBytes(key, json);
      const previous = entries.get(key);
      let current = 0;
      for (const entry of entries.values()) current += entry.bytes;
      const usedBytes = current - (previous?.bytes ?? 0) + bytes;
      const keys = entries.size + (previous === undefined ? 1 : 0);
      if (keys > limits.maxKeys) return { stored: false, limit: 'maxKeys', usedBytes: current, keys: entries.size };
      if (usedBytes > limits.maxBytes) return { stored: false, limit: 'maxBytes', usedBytes: current, keys: entries.size };
      const expiresAt = now + limits.ttlMs;
      // A key set again moves to the end: Map order is not the list order (list sorts), only insertion.
      entries.delete(key);
      entries.set(key, { json, bytes, updatedAt: now, expiresAt });
      scopes.set(scope, entries);
      return { stored: true, usedBytes, keys, expiresAt: new Date(expiresAt).toISOString() };
    },
    async delete(scope, key, now) {
      const entries = live(scope, now);
      const deleted = entries?.delete(key) ?? false;
      if (entries?.size === 0) scopes.delete(scope);
      return deleted;
    },
    async list(scope, prefix, now) {
      const entries = live(scope, now);
      if (entries === undefined) return [];
      const listed: SessionEntry[] = [];
      for (const [key, entry] of entries) {
        if (!key.startsWith(prefix)) continue;
        listed.push({
          key,
          bytes: Buffer.byteLength(entry.json, 'utf8'),
          updatedAt: new Date(entry.updatedAt).toISOString(),
          expiresAt: new Date(entry.expiresAt).toISOString(),
        });
      }
      // By UTF-8 bytes, as the store orders them (COLLATE "C").
      return listed.sort((a, b) => Buffer.compare(Buffer.from(a.key, 'utf8'), Buffer.from(b.key, 'utf8')));
    },
    async prune(now) {
      return sweep(now);
    },
  };
}

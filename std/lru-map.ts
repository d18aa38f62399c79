/**
 * A Map that holds at most `maxEntries` entries: reading or writing an entry makes it the most
 * recent, and past the limit the least recent is dropped. For caches and tallies keyed by values a
 * program chooses, so the host's memory cannot grow with them.
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries must be a positive integer (got ${maxEntries})`);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** The keys, least recent first. */
  keys(): IterableIterator<K> {
    return this.#entries.keys();
  }

  /** The value without making it the most recent. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    return this;
  }
}

import { randomUUID } from 'node:crypto';
import type { Sealer } from './sealed-state.js';

const HANDLE_PURPOSE = 'result-pages';

/** The URI template of a stored result's pages: `agent-spaces://results/<handle>/<page>`, pages counted from 1. */
export const RESULT_PAGE_TEMPLATE = 'agent-spaces://results/{handle}/{page}';

export interface ResultPagesOptions {
  /** Characters of one page. */
  pageChars: number;
  /** How long a stored result can be read. Default 10 minutes. */
  ttlMs?: number;
  /** Characters of all stored results together; the oldest go first. Default 32 Mi. */
  maxTotalChars?: number;
  /** Characters of one stored result; the rest is cut (and the last page says so). Default 8 Mi. */
  maxResultChars?: number;
}

interface StoredResult {
  id: string;
  scope: string;
  text: string;
  expires: number;
}

/** A page of a stored result, or why there is none. */
export type PageRead = { text: string; page: number; pages: number; next?: string } | { missing: string };

/**
 * Results too large for one answer, kept for a while so the client can read them in pages
 * (`resources/read` of `agent-spaces://results/<handle>/<page>`). A handle is sealed: it names the stored
 * result and the caller's scope (its session, or for clients without sessions the unguessable handle
 * itself), so one client cannot read another's results. Bounded in size and time. The result of a run
 * kept in a store (serve with a store) can be read on any replica: its handle also names the run, and
 * a replica that does not hold the text makes it again from the run's result in the store.
 */
export class ResultPages {
  readonly pageChars: number;
  readonly #sealer: Sealer;
  readonly #ttlMs: number;
  readonly #maxTotalChars: number;
  readonly #maxResultChars: number;
  /** Insertion order is age order, so eviction takes from the front. */
  readonly #results = new Map<string, StoredResult>();
  #totalChars = 0;

  constructor(sealer: Sealer, options: ResultPagesOptions) {
    this.#sealer = sealer;
    this.pageChars = options.pageChars;
    this.#ttlMs = options.ttlMs ?? 10 * 60 * 1000;
    this.#maxTotalChars = options.maxTotalChars ?? 32 * 1024 * 1024;
    this.#maxResultChars = options.maxResultChars ?? 8 * 1024 * 1024;
  }

  /**
   * Stores `text` for `scope`; returns the URI of its first page and the number of pages. `run`: the id
   * of the stored run the text was made from, so that another replica can make it again.
   */
  store(text: string, scope: string, run?: string): { uri: string; pages: number; expiresAt: string } {
    this.#sweep();
    const kept = this.#cut(text);
    while (this.#totalChars + kept.length > this.#maxTotalChars && this.#results.size > 0)
      this.#drop(this.#results.keys().next().value as string);
    const stored: StoredResult = { id: randomUUID(), scope, text: kept, expires: Date.now() + this.#ttlMs };
    this.#results.set(stored.id, stored);
    this.#totalChars += kept.length;
    const handle = this.#sealer.seal(HANDLE_PURPOSE, { id: stored.id, scope, ...(run === undefined ? {} : { run, exp: stored.expires }) });
    return { uri: pageUri(handle, 1), pages: this.#pageCount(kept), expiresAt: new Date(stored.expires).toISOString() };
  }

  /**
   * Reads page `page` (from 1) of the result `handle` names, for a caller of `scope`. `remake` gives the
   * text of a stored run's result again (undefined once the store has it no more), for a handle that
   * names a run this replica holds no text of.
   */
  async read(handle: string, page: string, scope: string, remake?: (run: string) => Promise<string | undefined>): Promise<PageRead> {
    this.#sweep();
    const opened = this.#sealer.open(HANDLE_PURPOSE, handle) as { id?: unknown; scope?: unknown; run?: unknown; exp?: unknown } | undefined;
    if (!opened || typeof opened.id !== 'string')
      return { missing: 'not a result handle of this server (altered, or the server restarted)' };
    if (opened.scope !== scope) return { missing: 'the result belongs to another session; run the program again' };
    const stored = this.#results.get(opened.id);
    if (stored !== undefined) return this.#page(stored.text, handle, page);
    if (typeof opened.run === 'string' && typeof opened.exp === 'number' && opened.exp > Date.now() && remake !== undefined) {
      const text = await remake(opened.run);
      if (text === undefined) return { missing: `the result of run ${opened.run} is no longer in the store; run the program again` };
      return this.#page(this.#cut(text), handle, page);
    }
    return { missing: 'the result expired, or was evicted to make room; run the program again' };
  }

  #page(text: string, handle: string, page: string): PageRead {
    const number = Number(page);
    const pages = this.#pageCount(text);
    if (!Number.isInteger(number) || number < 1 || number > pages)
      return { missing: `page "${page}" does not exist: the result has pages 1 to ${pages}` };
    return {
      text: text.slice((number - 1) * this.pageChars, number * this.pageChars),
      page: number,
      pages,
      ...(number < pages ? { next: pageUri(handle, number + 1) } : {}),
    };
  }

  #cut(text: string): string {
    return text.length > this.#maxResultChars
      ? `${text.slice(0, this.#maxResultChars)}\n… [cut at ${this.#maxResultChars} of ${text.length} characters: the rest was not kept]`
      : text;
  }

  #pageCount(text: string): number {
    return Math.max(1, Math.ceil(text.length / this.pageChars));
  }

  #sweep(): void {
    const now = Date.now();
    for (const stored of this.#results.values()) {
      if (stored.expires > now) break;
      this.#drop(stored.id);
    }
  }

  #drop(id: string): void {
    const stored = this.#results.get(id);
    if (!stored) return;
    this.#results.delete(id);
    this.#totalChars -= stored.text.length;
  }
}

function pageUri(handle: string, page: number): string {
  return `agent-spaces://results/${handle}/${page}`;
}

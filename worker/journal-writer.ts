import { errorMessage } from '../core/index.js';
import { DurableError, SCHEMA, type Pool } from '../store/internals.js';
import type { CallKey } from './call-key.js';

/**
 * How long a row may wait for others to join its batch when nobody waits for it (a `finished` row):
 * a program's next call usually comes within it, and a non-idempotent one's `started` row then goes
 * in the same statement. A flush sends at once.
 */
export const JOURNAL_BATCH_MS = 2;
/** Rows, and bytes of outcomes, one statement writes at most (the rest go in the next; a larger row alone). */
const MAX_BATCH_ROWS = 256;
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/** One row of the call journal as the writer sends it (the outcome as JSON text). */
export interface JournalWrite {
  key: CallKey;
  status: 'started' | 'finished';
  outcome: string | null;
}

/**
 * Every row of one column per parameter, unnested into rows: one statement writes a whole batch, and
 * its text never changes (PostgreSQL plans it once per connection, as a named statement).
 */
const BATCH_SQL = `INSERT INTO ${SCHEMA}.call_journal (run_id, call_key, capability, function, args_hash, occurrence, status, outcome, executor_id)
  SELECT $1, r.*, $8 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $9::text[])
    AS r (call_key, capability, function, args_hash, occurrence, status, outcome)
  ON CONFLICT (run_id, call_key) DO UPDATE SET status = EXCLUDED.status, outcome = EXCLUDED.outcome, executor_id = EXCLUDED.executor_id, updated_at = now()`;

interface Waiter {
  upTo: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The one ordered writer of one run attempt's call journal. Rows are written in the order they are
 * queued, one statement at a time (a batch of every row queued meanwhile), so what is committed is
 * always a prefix of what was queued: a `finished` row lost in a crash takes every later row with it.
 * `queue` does not wait; `flush` waits until every row queued before it is committed. A failed write
 * fails every flush after it (the journal cannot be trusted to hold what came before) and is reported
 * once through `onFailure`.
 */
export class JournalWriter {
  readonly #pending = new Map<string, JournalWrite>();
  readonly #waiters: Waiter[] = [];
  /** Rows queued and rows committed, counted since the writer was made. */
  #queued = 0;
  #committed = 0;
  #writing = false;
  #timer: NodeJS.Timeout | undefined;
  #failure: DurableError | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly runId: string,
    private readonly executorId: string,
    private readonly onFailure: (error: DurableError) => void,
  ) {}

  /** The failure of a write, if one failed: nothing is written after it. */
  get failure(): DurableError | undefined {
    return this.#failure;
  }

  /** Queues `row` (a later row for the same call replaces it while neither is sent); sent within JOURNAL_BATCH_MS. */
  queue(row: JournalWrite): void {
    if (this.#failure !== undefined) return;
    this.#pending.delete(row.key.key);
    this.#pending.set(row.key.key, row);
    this.#queued += 1;
    if (this.#writing || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.#send(), JOURNAL_BATCH_MS);
  }

  /** Resolves once every row queued so far is committed; rejects with the failure of a write. */
  flush(): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#committed >= this.#queued) return Promise.resolve();
    const waited = new Promise<void>((resolve, reject) => this.#waiters.push({ upTo: this.#queued, resolve, reject }));
    if (!this.#writing) this.#send();
    return waited;
  }

  /** Writes what is pending, batch after batch, until nothing is; one statement in flight at a time. */
  #send(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#writing || this.#pending.size === 0) return;
    this.#writing = true;
    void this.#drain();
  }

  async #drain(): Promise<void> {
    while (this.#pending.size > 0 && this.#failure === undefined) {
      const batch = nextBatch(this.#pending.values());
      for (const row of batch) this.#pending.delete(row.key.key);
      // Rows replaced while pending were counted as queued: all rows up to here are in this batch or before it.
      const upTo = this.#pending.size === 0 ? this.#queued : this.#committed + batch.length;
      try {
        await this.#write(batch);
      } catch (error) {
        this.#fail(error);
        break;
      }
      this.#committed = Math.max(this.#committed, upTo);
      for (const waiter of this.#waiters.filter((found) => found.upTo <= this.#committed)) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
    this.#writing = false;
  }

  #write(batch: JournalWrite[]): Promise<unknown> {
    const column = <T>(pick: (row: JournalWrite) => T): T[] => batch.map(pick);
    return this.pool.query({
      name: 'agent_spaces_journal_batch',
      text: BATCH_SQL,
      values: [
        this.runId,
        column((row) => row.key.key),
        column((row) => row.key.capability),
        column((row) => row.key.function),
        column((row) => row.key.argsHash),
        column((row) => row.key.occurrence),
        column((row) => row.status),
        this.executorId,
        column((row) => row.outcome),
      ],
    });
  }

  #fail(error: unknown): void {
    this.#failure = new DurableError(
      'STORE_UNAVAILABLE',
      `the call journal of run ${this.runId} could not be written (${errorMessage(error)}): the run stops, as a replay could not tell which of its calls happened`,
      { cause: error, details: { runId: this.runId } },
    );
    this.#pending.clear();
    for (const waiter of this.#waiters.splice(0)) waiter.reject(this.#failure);
    this.onFailure(this.#failure);
  }
}

/** The first rows of `pending`, up to MAX_BATCH_ROWS rows and MAX_BATCH_BYTES of outcomes (at least one row). */
function nextBatch(pending: Iterable<JournalWrite>): JournalWrite[] {
  const batch: JournalWrite[] = [];
  let bytes = 0;
  for (const row of pending) {
    bytes += row.outcome?.length ?? 0;
    if (batch.length > 0 && (batch.length === MAX_BATCH_ROWS || bytes > MAX_BATCH_BYTES)) break;
    batch.push(row);
  }
  return batch;
}

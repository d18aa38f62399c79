import type { BackendCall } from '../bridge/index.js';
import { ToolCallError, errorMessage } from '../core/index.js';
import { argumentsHash, createCallCounter, describeCall, type CallKey } from './call-key.js';
import { JournalWriter } from './journal-writer.js';
import { DurableError, SCHEMA, type Pool } from '../store/internals.js';

/**
 * The call results one run may keep in the journal (bytes of their JSON), as a run may write 64 MiB to
 * disk: past it, new calls are refused (CALL_LIMIT_EXCEEDED), so one program cannot fill the store with
 * up to maxCalls × the result cap. The journal holds at most this plus one call's result.
 */
export const MAX_JOURNAL_BYTES = 64 * 1024 * 1024;

/** What a finished call's program saw, as the journal keeps it. */
type Outcome =
  | { ok: true; value?: unknown }
  | { ok: false; error: { toolCall: boolean; code?: string; message: string; details?: Record<string, unknown> } };

interface Entry {
  key: CallKey;
  status: 'started' | 'finished';
  outcome?: Outcome;
}

export interface RunJournalOptions {
  runId: string;
  executorId: string;
  /** Whether a call may be performed again when an earlier attempt left it in flight. */
  isIdempotent(call: BackendCall): boolean;
  /** The run cannot go on (divergence, outcome unknown): end it. */
  onFatal(error: DurableError): void;
  /**
   * Whether the worker is stopping (it lost its liveness lock, or is being closed): another worker may
   * take the run over from now on, so no call is performed any more — a call begun by this worker
   * after that could run beside the takeover's replay.
   */
  stopping?(): boolean;
}

/**
 * One attempt of one durable run, seen through its call journal.
 *
 * Every call is known by (capability, function, arguments hash, occurrence). A finished call is
 * written to the journal with what the program saw (value or error), by one ordered writer per
 * attempt (journal-writer.ts) that the program does not wait for: what is committed is always a
 * prefix of what was written, and every row is committed before the next non-idempotent call's
 * `started` row (in the same statement), before the run's end is recorded (`flush`), and before an
 * approval wait. A crash may lose the last `finished` rows: a non-idempotent call whose `finished`
 * row was lost is in flight on the replay (its `started` row was committed before it was
 * performed), and an idempotent one is simply performed again.
 * On a later attempt (a worker took the run over), the program runs again from the start and:
 * - a call the journal holds as finished is answered from the journal, not performed;
 * - while the journal holds a call that was in flight when the worker died (started, not finished:
 *   its outcome is unknown), no call of a function that is not idempotent is performed — whatever its
 *   function and arguments: a replay may reach the in-flight call's place in the program with other
 *   arguments (a nonce from the clock), or with another call, and performing that would do the
 *   effect a second time. The run ends with OUTCOME_UNKNOWN instead. An idempotent call is performed
 *   (the same call in flight before, made again, is then settled);
 * - a program that ends (however it ends) without making again an in-flight call of the journal
 *   skipped it: the run ends with OUTCOME_UNKNOWN too, never as a success or a failure of its own;
 * - a call the journal does not hold is new. The replay diverged (REPLAY_DIVERGED) when such a new
 *   call comes while finished journaled calls have not been made again yet: the journal's calls
 *   must all be made again before anything new is performed. The same holds at the end: a program
 *   that ends with journaled calls never made again diverged.
 * Non-idempotent calls are written as started before they are performed (that is what makes an
 * unknown outcome visible); idempotent ones only when finished (one write a call): performing them
 * again is allowed, so their being in flight needs no record.
 */
export interface RunJournal {
  perform(call: BackendCall, perform: () => Promise<unknown>): Promise<unknown>;
  /** The failure that ended the run, if the journal ended it. */
  readonly fatal: DurableError | undefined;
  /**
   * At the program's end, whatever its result: OUTCOME_UNKNOWN when an in-flight call of an earlier
   * attempt was never made again, else (`divergence`, for a program that succeeded) the divergence
   * of journaled calls never made again, if any. It becomes the journal's `fatal`.
   */
  finish(options?: { divergence?: boolean }): DurableError | undefined;
  /**
   * Whether a call of this function may still be performed in this attempt (an approval is not asked
   * for one the journal will refuse): when not, the journal ends the run with OUTCOME_UNKNOWN (as
   * `perform` would) and returns its error.
   */
  refuses(capability: string, fn: string, args: unknown, idempotent: boolean): DurableError | undefined;
  /** How many finished calls the journal held when this attempt started (0: a first attempt). */
  readonly replayed: number;
  /**
   * Resolves once every journal row of this attempt so far is committed (before the run's end is
   * recorded, before an approval wait); rejects when a write failed (the journal's `fatal` then says so).
   */
  flush(): Promise<void>;
}

/** The columns of a journal row as an attempt reads them (`JOURNAL_COLUMNS`). */
export interface JournalRow {
  call_key: string;
  capability: string;
  function: string;
  args_hash: string;
  occurrence: number;
  status: 'started' | 'finished';
  outcome: string | null;
}

export const JOURNAL_COLUMNS = 'call_key, capability, function, args_hash, occurrence, status, outcome';

/** Reads the journal of `options.runId` as earlier attempts left it, for this attempt. */
export async function openRunJournal(pool: Pool, options: RunJournalOptions): Promise<RunJournal> {
  const rows = await pool.query<JournalRow>(`SELECT ${JOURNAL_COLUMNS} FROM ${SCHEMA}.call_journal WHERE run_id = $1`, [options.runId]);
  return journalOf(pool, options, rows.rows);
}

/** This attempt's journal over `rows`, the journal of `options.runId` as read already (with other reads, in one statement). */
export function journalOf(pool: Pool, options: RunJournalOptions, rows: readonly JournalRow[]): RunJournal {
  return new AttemptJournal(pool, options, rows);
}

/** One attempt's view of the journal: what earlier attempts finished, left in flight, and what this one made again. */
class AttemptJournal implements RunJournal {
  readonly replayed: number;
  #fatal: DurableError | undefined;
  readonly #entries = new Map<string, Entry>();
  /** Bytes of the outcomes the journal holds for this run (earlier attempts' included). */
  #journaledBytes = 0;
  /** Finished journaled calls this attempt has not made again yet. */
  readonly #unserved: Set<string>;
  /** Calls of earlier attempts in flight when their worker died (started, never finished): their outcome is unknown. */
  readonly #inFlight: Map<string, CallKey>;
  readonly #count = createCallCounter();
  readonly #writer: JournalWriter;

  constructor(
    pool: Pool,
    private readonly options: RunJournalOptions,
    rows: readonly JournalRow[],
  ) {
    this.#writer = new JournalWriter(pool, options.runId, options.executorId, (error) => {
      if (this.#fatal !== undefined) return;
      this.#fatal = error;
      options.onFatal(error);
    });
    for (const row of rows) {
      this.#journaledBytes += row.outcome === null ? 0 : Buffer.byteLength(row.outcome);
      this.#entries.set(row.call_key, {
        key: { key: row.call_key, capability: row.capability, function: row.function, argsHash: row.args_hash, occurrence: row.occurrence },
        status: row.status,
        ...(row.outcome === null ? {} : { outcome: JSON.parse(row.outcome) as Outcome }),
      });
    }
    const entries = [...this.#entries.values()];
    this.#unserved = new Set(entries.filter((entry) => entry.status === 'finished').map((entry) => entry.key.key));
    this.replayed = this.#unserved.size;
    this.#inFlight = new Map(entries.filter((entry) => entry.status === 'started').map((entry) => [entry.key.key, entry.key]));
  }

  get fatal(): DurableError | undefined {
    return this.#fatal;
  }

  flush(): Promise<void> {
    return this.#writer.flush();
  }

  async perform(call: BackendCall, perform: () => Promise<unknown>): Promise<unknown> {
    if (this.#fatal !== undefined) this.#fail(this.#fatal, call);
    const key = this.#count(call.capability.module, call.function.name, call.args);
    const entry = this.#entries.get(key.key);
    if (entry?.status === 'finished' && entry.outcome !== undefined) {
      this.#unserved.delete(key.key);
      return replay(entry.outcome, key);
    }
    const idempotent = this.options.isIdempotent(call);
    const refused = this.#refusal(key, entry?.status === 'started', idempotent);
    if (refused !== undefined) this.#fail(refused, call);
    // The in-flight call itself, made again as its function is idempotent: its outcome will be known.
    if (entry?.status === 'started') this.#inFlight.delete(key.key);
    // Refused before it is performed or journaled: a replay meets the same full journal and refuses it again.
    if (this.#journaledBytes >= MAX_JOURNAL_BYTES) {
      throw new ToolCallError(
        'CALL_LIMIT_EXCEEDED',
        `run ${this.options.runId} keeps ${this.#journaledBytes} bytes of call results in its journal, the most a durable run may keep is ${MAX_JOURNAL_BYTES}: no more calls (have tools return less, or split the work into several runs)`,
        { capability: call.capability.module, function: call.function.name },
      );
    }
    return this.#performNew(call, key, idempotent, perform);
  }

  /**
   * Performs a call the journal does not answer: a non-idempotent one only once its `started` row is
   * committed (with every row before it); then its `finished` row, with what the program sees, is
   * queued, not waited for.
   */
  async #performNew(call: BackendCall, key: CallKey, idempotent: boolean, perform: () => Promise<unknown>): Promise<unknown> {
    this.#unlessStopping(call, key);
    if (!idempotent) {
      this.#write(key, 'started');
      // A write that failed (this one or an earlier one) stops the run: the call is not performed.
      await this.#writer.flush().catch((error: unknown) => this.#fail(this.#fatal ?? (error as DurableError), call));
    }
    this.#unlessStopping(call, key);
    let value: unknown;
    try {
      value = await perform();
    } catch (error) {
      // A call cut short because the run ended is not an outcome the program saw.
      if (call.context.signal.aborted) throw error;
      this.#write(key, 'finished', failureOutcome(error));
      throw error;
    }
    this.#write(key, 'finished', { ok: true, value });
    return value;
  }

  finish(finishOptions: { divergence?: boolean } = { divergence: true }): DurableError | undefined {
    if (this.#fatal !== undefined) return undefined;
    if (this.#inFlight.size > 0) {
      this.#fatal = this.#outcomeUnknown(undefined);
      return this.#fatal;
    }
    if (finishOptions.divergence !== true || this.#unserved.size === 0) return undefined;
    const missing = this.#notMadeAgain();
    this.#fatal = new DurableError(
      'REPLAY_DIVERGED',
      `the replay of run ${this.options.runId} diverged from its journal: the program ended without making again the journaled ${describeCalls(missing)}`,
      { details: { runId: this.options.runId, notMadeAgain: missing.map((found) => found.key) } },
    );
    return this.#fatal;
  }

  refuses(capability: string, fn: string, args: unknown, idempotent: boolean): DurableError | undefined {
    if (this.#fatal !== undefined) return this.#fatal;
    // Which call of the run it will be is known only when it is made: any occurrence with these arguments.
    const argsHash = argumentsHash(args);
    const same = (found: CallKey | undefined): boolean =>
      found !== undefined && found.capability === capability && found.function === fn && found.argsHash === argsHash;
    // A finished call made again is answered from the journal, not performed.
    if ([...this.#unserved].some((name) => same(this.#entries.get(name)?.key))) return undefined;
    const refused = this.#refusal({ capability, function: fn }, [...this.#inFlight.values()].some(same), idempotent);
    if (refused === undefined) return undefined;
    this.#fatal = refused;
    this.options.onFatal(refused);
    return refused;
  }

  #fail(error: DurableError, call: BackendCall): never {
    if (this.#fatal === undefined) {
      this.#fatal = error;
      this.options.onFatal(error);
    }
    throw new ToolCallError('CANCELLED', this.#fatal.message, { capability: call.capability.module, function: call.function.name });
  }

  /** No call is begun once the worker is stopping: another worker may be taking the run over. */
  #unlessStopping(call: BackendCall, key: CallKey): void {
    if (this.options.stopping?.() === true)
      throw new ToolCallError(
        'CANCELLED',
        `${describeCall(key)} was not performed: the worker running run ${this.options.runId} is stopping (another worker takes the run over)`,
        { capability: call.capability.module, function: call.function.name },
      );
  }

  /** Queues a journal row with the attempt's one writer (in order; not waited for). */
  #write(key: CallKey, status: 'started' | 'finished', outcome?: Outcome): void {
    const text = outcome === undefined ? null : JSON.stringify(outcome);
    if (text !== null) this.#journaledBytes += Buffer.byteLength(text);
    this.#writer.queue({ key, status, outcome: text });
  }

  /**
   * Why a call the journal does not answer may not be performed in this attempt, if it may not:
   * - it is new while finished journaled calls have not been made again yet: the replay diverged
   *   (it has not reached the place of any call that was in flight yet);
   * - calls of an earlier attempt were in flight (their outcome is unknown) and its function is not
   *   idempotent: nothing that may not be done twice is done after such a call — not the same call
   *   again, and not another one in its place (other arguments, another function).
   */
  #refusal(key: Pick<CallKey, 'capability' | 'function'> | CallKey, wasInFlight: boolean, idempotent: boolean): DurableError | undefined {
    if (!wasInFlight && this.#unserved.size > 0) return this.#diverged(key);
    if (!idempotent && this.#inFlight.size > 0) return this.#outcomeUnknown(key);
    return undefined;
  }

  /** A new call (`key`) came while finished journaled calls have not been made again yet. */
  #diverged(key: Pick<CallKey, 'capability' | 'function'> | CallKey): DurableError {
    const { runId } = this.options;
    const inFlight = this.#inFlight;
    const missing = this.#notMadeAgain();
    const unknown =
      inFlight.size === 0
        ? ''
        : ` (and the outcome of the journaled ${describeCalls([...inFlight.values()])}, in flight when the worker stopped, is unknown)`;
    const named = 'key' in key ? describeCall(key) : `${key.capability}.${key.function}`;
    return new DurableError(
      'REPLAY_DIVERGED',
      `the replay of run ${runId} diverged from its journal: the program called ${named}, which the journal does not hold, before making again the journaled ${describeCalls(missing)}${unknown}. A program must make the same calls when it runs again (no randomness, clock or environment deciding its calls)`,
      {
        details: {
          runId,
          unexpected: 'key' in key ? key.key : `${key.capability}.${key.function}`,
          notMadeAgain: missing.map((found) => found.key),
          ...(inFlight.size === 0 ? {} : { inFlight: [...inFlight.keys()] }),
        },
      },
    );
  }

  /**
   * The run's end when calls of an earlier attempt were in flight: `instead` is the call this attempt
   * would have performed (undefined: the program ended without making the in-flight calls again).
   */
  #outcomeUnknown(instead: Pick<CallKey, 'capability' | 'function'> | CallKey | undefined): DurableError {
    const calls = [...this.#inFlight.values()];
    const same = instead !== undefined && 'key' in instead && this.#inFlight.has(instead.key);
    const what =
      instead === undefined
        ? 'this attempt ended without making it again, so the run cannot tell whether its effect happened'
        : same
          ? 'it is not performed again, as its function is not marked idempotent'
          : `this attempt called ${instead.capability}.${instead.function} in its place (other arguments or another function: a program that reads the clock or a random number), which is not performed, as its function is not marked idempotent: nothing that may not be done twice is done after a call whose outcome is unknown`;
    return new DurableError(
      'OUTCOME_UNKNOWN',
      `the outcome of ${describeCalls(calls)} is unknown: ${calls.length === 1 ? 'it was' : 'they were'} in flight when the worker running run ${this.options.runId} stopped; ${what}. Check the effect by hand; mark a function idempotent (annotations.idempotentHint, or durable.idempotent in the config) if calling it twice is safe`,
      {
        details: {
          runId: this.options.runId,
          inFlight: calls.map((found) => ({ capability: found.capability, function: found.function, occurrence: found.occurrence })),
          ...(instead === undefined || same ? {} : { instead: { capability: instead.capability, function: instead.function } }),
        },
      },
    );
  }

  /** The finished journaled calls this attempt has not made again yet. */
  #notMadeAgain(): CallKey[] {
    return [...this.#unserved].map((name) => this.#entries.get(name)?.key).filter((found): found is CallKey => found !== undefined);
  }
}

/** What the program saw of a call that failed, as the journal keeps it (a tool call's code and details kept). */
function failureOutcome(error: unknown): Outcome {
  return error instanceof ToolCallError
    ? {
        ok: false,
        error: { toolCall: true, code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
      }
    : { ok: false, error: { toolCall: false, message: errorMessage(error) } };
}

/** A journaled outcome, given to the program again: the value, or the same error. */
function replay(outcome: Outcome, key: CallKey): unknown {
  if (outcome.ok) return outcome.value;
  const { error } = outcome;
  if (error.toolCall && error.code !== undefined) {
    throw new ToolCallError(
      error.code as ToolCallError['code'],
      error.message,
      { capability: key.capability, function: key.function },
      error.details ? { details: error.details } : {},
    );
  }
  throw new Error(error.message);
}

/** The first three calls by name, and how many more. */
function describeCalls(calls: CallKey[]): string {
  const more = calls.length > 3 ? ` and ${calls.length - 3} more` : '';
  return `${calls.slice(0, 3).map(describeCall).join(', ')}${more}`;
}

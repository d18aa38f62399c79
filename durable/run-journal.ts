import type { BackendCall } from '../bridge/index.js';
import { ToolCallError, errorMessage } from '../core/index.js';
import { createCallCounter, describeCall, type CallKey } from './call-key.js';
import { DurableError } from './durable-error.js';
import { SCHEMA, type Pool } from './store.js';

/**
 * The call results one run may keep in the journal (bytes of their JSON), as a run may write 64 MiB to
 * disk: past it, new calls are refused (CALL_LIMIT_EXCEEDED), so one program cannot fill the store with
 * up to maxCalls × the result cap. The journal holds at most this plus one call's result.
 */
export const MAX_JOURNAL_BYTES = 64 * 1024 * 1024;

/** What a finished call's program saw, as the journal keeps it. */
type Outcome = { ok: true; value?: unknown } | { ok: false; error: { toolCall: boolean; code?: string; message: string; details?: Record<string, unknown> } };

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
}

/**
 * One attempt of one durable run, seen through its call journal.
 *
 * Every call is known by (capability, function, arguments hash, occurrence). A finished call is
 * written to the journal, with what the program saw (value or error), before the program sees it.
 * On a later attempt (a worker took the run over), the program runs again from the start and:
 * - a call the journal holds as finished is answered from the journal, not performed;
 * - a call the journal holds as started but not finished was in flight when the worker died: it is
 *   performed again only if its function is idempotent, else the run fails with OUTCOME_UNKNOWN;
 * - a call the journal does not hold is new. The replay diverged (REPLAY_DIVERGED) when such a new
 *   call comes while finished journaled calls have not been made again yet: the journal's calls
 *   must all be made again before anything new is performed. The same holds at the end: a program
 *   that ends with journaled calls never made again diverged.
 * Non-idempotent calls are written as started before they are performed (that is what makes an
 * unknown outcome visible); idempotent ones only when finished (one write a call).
 */
export interface RunJournal {
  perform(call: BackendCall, perform: () => Promise<unknown>): Promise<unknown>;
  /** The failure that ended the run, if the journal ended it. */
  readonly fatal: DurableError | undefined;
  /** At the program's end: the divergence of journaled calls never made again, if any. */
  finish(): DurableError | undefined;
  /** How many finished calls the journal held when this attempt started (0: a first attempt). */
  readonly replayed: number;
}

export async function openRunJournal(pool: Pool, options: RunJournalOptions): Promise<RunJournal> {
  const { runId } = options;
  const rows = await pool.query<{ call_key: string; capability: string; function: string; args_hash: string; occurrence: number; status: 'started' | 'finished'; outcome: string | null }>(
    `SELECT call_key, capability, function, args_hash, occurrence, status, outcome FROM ${SCHEMA}.call_journal WHERE run_id = $1`,
    [runId],
  );
  const entries = new Map<string, Entry>();
  /** Bytes of the outcomes the journal holds for this run (earlier attempts' included). */
  let journaledBytes = 0;
  for (const row of rows.rows) {
    journaledBytes += row.outcome === null ? 0 : Buffer.byteLength(row.outcome);
    entries.set(row.call_key, {
      key: { key: row.call_key, capability: row.capability, function: row.function, argsHash: row.args_hash, occurrence: row.occurrence },
      status: row.status,
      ...(row.outcome === null ? {} : { outcome: JSON.parse(row.outcome) as Outcome }),
    });
  }
  /** Finished journaled calls this attempt has not made again yet. */
  const unserved = new Set([...entries.values()].filter((entry) => entry.status === 'finished').map((entry) => entry.key.key));
  const replayed = unserved.size;
  const count = createCallCounter();
  let fatal: DurableError | undefined;

  const fail = (error: DurableError, call: BackendCall): never => {
    if (fatal === undefined) {
      fatal = error;
      options.onFatal(error);
    }
    throw new ToolCallError('CANCELLED', fatal.message, { capability: call.capability.module, function: call.function.name });
  };

  const write = async (key: CallKey, status: 'started' | 'finished', outcome?: Outcome): Promise<void> => {
    const text = outcome === undefined ? null : JSON.stringify(outcome);
    if (text !== null) journaledBytes += Buffer.byteLength(text);
    await pool.query(
      `INSERT INTO ${SCHEMA}.call_journal (run_id, call_key, capability, function, args_hash, occurrence, status, outcome, executor_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (run_id, call_key) DO UPDATE SET status = EXCLUDED.status, outcome = EXCLUDED.outcome, executor_id = EXCLUDED.executor_id, updated_at = now()`,
      [runId, key.key, key.capability, key.function, key.argsHash, key.occurrence, status, text, options.executorId],
    );
  };

  return {
    get fatal() {
      return fatal;
    },
    replayed,
    async perform(call, perform) {
      if (fatal !== undefined) fail(fatal, call);
      const key = count(call.capability.module, call.function.name, call.args);
      const entry = entries.get(key.key);
      if (entry?.status === 'finished' && entry.outcome !== undefined) {
        unserved.delete(key.key);
        return replay(entry.outcome, key);
      }
      const idempotent = options.isIdempotent(call);
      if (entry?.status === 'started' && !idempotent) {
        fail(
          new DurableError(
            'OUTCOME_UNKNOWN',
            `the outcome of ${describeCall(key)} is unknown: it was in flight when the worker running this run stopped, and its function is not marked idempotent, so it is not performed again. Check its effect by hand; mark the function idempotent (annotations.idempotentHint, or durable.idempotent in the config) if calling it twice is safe`,
            { details: { runId, capability: key.capability, function: key.function, occurrence: key.occurrence } },
          ),
          call,
        );
      }
      if (entry === undefined && unserved.size > 0) {
        const missing = notMadeAgain();
        fail(
          new DurableError(
            'REPLAY_DIVERGED',
            `the replay of run ${runId} diverged from its journal: the program called ${describeCall(key)}, which the journal does not hold, before making again the journaled ${describeCalls(missing)}. A program must make the same calls when it runs again (no randomness, clock or environment deciding its calls)`,
            { details: { runId, unexpected: key.key, notMadeAgain: missing.map((found) => found.key) } },
          ),
          call,
        );
      }
      // Refused before it is performed or journaled: a replay meets the same full journal and refuses it again.
      if (journaledBytes >= MAX_JOURNAL_BYTES) {
        throw new ToolCallError(
          'CALL_LIMIT_EXCEEDED',
          `run ${runId} keeps ${journaledBytes} bytes of call results in its journal, the most a durable run may keep is ${MAX_JOURNAL_BYTES}: no more calls (have tools return less, or split the work into several runs)`,
          { capability: call.capability.module, function: call.function.name },
        );
      }
      if (!idempotent) await write(key, 'started');
      let outcome: Outcome;
      let value: unknown;
      try {
        value = await perform();
        outcome = { ok: true, value };
      } catch (error) {
        // A call cut short because the run ended is not an outcome the program saw.
        if (call.context.signal.aborted) throw error;
        outcome = error instanceof ToolCallError
          ? { ok: false, error: { toolCall: true, code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } }
          : { ok: false, error: { toolCall: false, message: errorMessage(error) } };
        await write(key, 'finished', outcome);
        throw error;
      }
      await write(key, 'finished', outcome);
      return value;
    },
    finish() {
      if (fatal !== undefined || unserved.size === 0) return undefined;
      const missing = notMadeAgain();
      fatal = new DurableError(
        'REPLAY_DIVERGED',
        `the replay of run ${runId} diverged from its journal: the program ended without making again the journaled ${describeCalls(missing)}`,
        { details: { runId, notMadeAgain: missing.map((found) => found.key) } },
      );
      return fatal;
    },
  };

  /** The finished journaled calls this attempt has not made again yet. */
  function notMadeAgain(): CallKey[] {
    return [...unserved].map((name) => entries.get(name)?.key).filter((found): found is CallKey => found !== undefined);
  }

  function replay(outcome: Outcome, key: CallKey): unknown {
    if (outcome.ok) return outcome.value;
    const { error } = outcome;
    if (error.toolCall && error.code !== undefined) {
      throw new ToolCallError(error.code as ToolCallError['code'], error.message, { capability: key.capability, function: key.function }, error.details ? { details: error.details } : {});
    }
    throw new Error(error.message);
  }
}

/** The first three calls by name, and how many more. */
function describeCalls(calls: CallKey[]): string {
  const more = calls.length > 3 ? ` and ${calls.length - 3} more` : '';
  return `${calls.slice(0, 3).map(describeCall).join(', ')}${more}`;
}

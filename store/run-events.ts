import type { RunLog, RunResult } from '../core/index.js';
import { prepared, RUN_ENDS_CHANNEL, RUN_EVENTS_CHANNEL, SCHEMA, type Pool } from './store.js';
import { writerOf, type StoreWriter } from './store-writer.js';

/** What a worker tells the submitter of a run, in order, through the store. */
export type DurableRunEvent =
  | { kind: 'started'; executorId: string; attempt: number; replayedCalls: number }
  | { kind: 'log'; log: RunLog }
  | { kind: 'approval-required'; approvalId: string; capability: string; function: string; message: string; deadline?: string }
  | { kind: 'approval-decided'; approvalId: string; approved: boolean; reason?: string }
  | { kind: 'planner'; event: unknown }
  /** A code run's `RunResult`, or a task's `TaskResult`. */
  | { kind: 'end'; result: RunResult | Record<string, unknown> };

/** A run's end as its notification carries it (RUN_ENDS_CHANNEL), parsed. */
export interface RunEndNote {
  runId: string;
  seq: number;
  /** The run's latest events before the end (at most END_NOTE_EVENTS), in order. */
  earlier: { seq: number; event: DurableRunEvent }[];
  /** Whether `earlier` holds every event of the run before its end. */
  complete: boolean;
  event: Extract<DurableRunEvent, { kind: 'end' }>;
}

/** Earlier events an end's notification carries at most. */
const END_NOTE_EVENTS = 16;
/** A payload this long at most goes on the ends channel (PostgreSQL refuses 8000 bytes and more). */
const END_NOTE_BYTES = 7900;

const APPEND_SQL = prepared(`WITH added AS (INSERT INTO ${SCHEMA}.run_events (run_id, kind, data) VALUES ($1, $2, $3) RETURNING run_id)
  SELECT pg_notify($4, run_id) FROM added`);

/**
 * The `end` event: its notification on the run events channel, and before it (when it fits) one on the
 * ends channel with the result and the run's latest earlier events, read in the same statement.
 */
const APPEND_END_SQL = prepared(`WITH earlier AS (
    SELECT seq, kind, data FROM ${SCHEMA}.run_events WHERE run_id = $1 ORDER BY seq DESC LIMIT ${END_NOTE_EVENTS + 1}),
  added AS (INSERT INTO ${SCHEMA}.run_events (run_id, kind, data) VALUES ($1, $2, $3::text) RETURNING run_id, seq),
  note AS (
    SELECT added.run_id, json_build_object('runId', added.run_id, 'seq', added.seq,
      'complete', (SELECT count(*) FROM earlier) <= ${END_NOTE_EVENTS},
      'earlier', (SELECT coalesce(json_agg(json_build_object('seq', seq, 'kind', kind, 'data', data::json) ORDER BY seq), '[]'::json)
        FROM (SELECT * FROM earlier ORDER BY seq DESC LIMIT ${END_NOTE_EVENTS}) AS latest),
      'data', $3::text::json)::text AS payload
    FROM added)
  SELECT CASE WHEN octet_length(payload) <= ${END_NOTE_BYTES} THEN pg_notify($5, payload) END AS ended, pg_notify($4, run_id) AS woken FROM note`);

/** Appends an event (through the store's one writer: redacted, whatever its kind) and wakes whoever listens for the run. */
export async function appendRunEvent(target: StoreWriter | Pool, runId: string, event: DurableRunEvent): Promise<void> {
  const { kind, ...data } = event;
  const end = kind === 'end';
  await writerOf(target).write(end ? APPEND_END_SQL : APPEND_SQL, [
    runId,
    kind,
    { json: data },
    RUN_EVENTS_CHANNEL,
    ...(end ? [RUN_ENDS_CHANNEL] : []),
  ]);
}

/** The end a notification on the ends channel carries, or undefined when the payload is not one. */
export function parseRunEndNote(payload: string): RunEndNote | undefined {
  try {
    const note = JSON.parse(payload) as {
      runId: string;
      seq: number;
      complete: boolean;
      earlier: { seq: number; kind: DurableRunEvent['kind']; data: object }[];
      data: object;
    };
    if (typeof note.runId !== 'string' || typeof note.seq !== 'number' || !Array.isArray(note.earlier)) return undefined;
    return {
      runId: note.runId,
      seq: note.seq,
      complete: note.complete === true,
      earlier: note.earlier.map((row) => ({ seq: row.seq, event: { kind: row.kind, ...row.data } as DurableRunEvent })),
      event: { kind: 'end', ...note.data } as RunEndNote['event'],
    };
  } catch {
    return undefined;
  }
}

export async function readRunEvents(pool: Pool, runId: string, afterSeq: number): Promise<{ seq: number; event: DurableRunEvent }[]> {
  const { rows } = await pool.query<{ seq: string; kind: DurableRunEvent['kind']; data: string }>(
    `SELECT seq, kind, data FROM ${SCHEMA}.run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq`,
    [runId, afterSeq],
  );
  return rows.map(storedEvent);
}

/** An event as stored (its row), parsed. */
function storedEvent(row: { seq: string; kind: DurableRunEvent['kind']; data: string }): { seq: number; event: DurableRunEvent } {
  return { seq: Number(row.seq), event: { kind: row.kind, ...(JSON.parse(row.data) as object) } as DurableRunEvent };
}

/**
 * A run's events after `afterSeq` and DBOS's status of it (undefined: DBOS has no row of it), read in
 * one statement — one snapshot, one round trip for a follower that wakes.
 */
const PROGRESS_SQL = prepared(`SELECT (SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1) AS status, e.seq, e.kind, e.data
    FROM (SELECT 1) AS one
    LEFT JOIN ${SCHEMA}.run_events AS e ON e.run_id = $1 AND e.seq > $2
   ORDER BY e.seq`);

export async function readRunProgress(
  pool: Pool,
  runId: string,
  afterSeq: number,
): Promise<{ events: { seq: number; event: DurableRunEvent }[]; status: string | undefined }> {
  const { rows } = await pool.query<{
    status: string | null;
    seq: string | null;
    kind: DurableRunEvent['kind'] | null;
    data: string | null;
  }>({ ...PROGRESS_SQL, values: [runId, afterSeq] });
  const events = rows.flatMap(({ seq, kind, data }) =>
    seq === null || kind === null || data === null ? [] : [storedEvent({ seq, kind, data })],
  );
  return { events, status: rows[0]?.status ?? undefined };
}

/** The result a run ended with (its `end` event), or undefined while it has none (or its rows were pruned). */
export async function readRunEnd(pool: Pool, runId: string): Promise<RunResult | Record<string, unknown> | undefined> {
  const { rows } = await pool.query<{ data: string }>(
    `SELECT data FROM ${SCHEMA}.run_events WHERE run_id = $1 AND kind = 'end' ORDER BY seq DESC LIMIT 1`,
    [runId],
  );
  const row = rows[0];
  return row === undefined ? undefined : (JSON.parse(row.data) as { result: RunResult | Record<string, unknown> }).result;
}

import type { RunLog, RunResult } from '../core/index.js';
import { RUN_EVENTS_CHANNEL, SCHEMA, type Pool } from './store.js';
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

/** Appends an event (through the store's one writer: redacted, whatever its kind) and wakes whoever listens for the run. */
export async function appendRunEvent(target: StoreWriter | Pool, runId: string, event: DurableRunEvent): Promise<void> {
  const { kind, ...data } = event;
  await writerOf(target).write(
    `WITH added AS (INSERT INTO ${SCHEMA}.run_events (run_id, kind, data) VALUES ($1, $2, $3) RETURNING run_id)
     SELECT pg_notify($4, run_id) FROM added`,
    [runId, kind, { json: data }, RUN_EVENTS_CHANNEL],
  );
}

export async function readRunEvents(pool: Pool, runId: string, afterSeq: number): Promise<{ seq: number; event: DurableRunEvent }[]> {
  const { rows } = await pool.query<{ seq: string; kind: DurableRunEvent['kind']; data: string }>(
    `SELECT seq, kind, data FROM ${SCHEMA}.run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq`,
    [runId, afterSeq],
  );
  return rows.map((row) => ({ seq: Number(row.seq), event: { kind: row.kind, ...(JSON.parse(row.data) as object) } as DurableRunEvent }));
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

/** How many times the run started (attempts) and how many log lines earlier attempts wrote. */
export async function priorAttempts(pool: Pool, runId: string): Promise<{ attempts: number; logs: number }> {
  const { rows } = await pool.query<{ attempts: string; logs: string }>(
    `SELECT count(*) FILTER (WHERE kind = 'started') AS attempts, count(*) FILTER (WHERE kind = 'log') AS logs FROM ${SCHEMA}.run_events WHERE run_id = $1`,
    [runId],
  );
  return { attempts: Number(rows[0]?.attempts ?? 0), logs: Number(rows[0]?.logs ?? 0) };
}

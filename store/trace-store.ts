// The trace of a run or task a worker executed, read back from the store. The worker already writes
// every event of its runs to run_events (store/run-events.ts), secrets redacted: a planner task's
// events are the same redacted events `executeTask({ trace })` writes to a trace file.
import { readRunEvents, type DurableRunEvent } from './run-events.js';
import type { Pool } from './store.js';

export type StoredTrace =
  /** A planner task: its planner events, one trace file's lines (`task --replay` reads them). */
  | { kind: 'task'; events: unknown[] }
  /** A code run: every event the worker wrote for it, attempts included. */
  | { kind: 'run'; events: DurableRunEvent[] };

/**
 * The trace of the run or task `id`; undefined when the store has no event of it. A task taken over
 * by another worker ran again from its start (its model replies served from the journal), so its
 * trace is its last attempt's events, complete from `task-start`.
 */
export async function readStoredTrace(pool: Pool, id: string): Promise<StoredTrace | undefined> {
  const events = (await readRunEvents(pool, id, 0)).map((row) => row.event);
  if (events.length === 0) return undefined;
  if (!events.some((event) => event.kind === 'planner')) return { kind: 'run', events };
  const lastStart = events.findLastIndex((event) => event.kind === 'started');
  const planner = events.slice(Math.max(lastStart, 0)).flatMap((event) => (event.kind === 'planner' ? [event.event] : []));
  return { kind: 'task', events: planner };
}

/**
 * Shapes the studio's API sends that the page reads as they are. No imports: the page's compile unit
 * (studio/ui, browser types only) takes them from here too, type-only.
 */

/** One call of a run, as the playground's timeline shows it. */
export interface TimelineCall {
  callId: string;
  capability: string;
  function: string;
  /** The arguments as JSON text, cut to a preview (a timeline never holds a call's whole payload). */
  args: string;
  /** Milliseconds since the epoch. */
  startedAt: number;
  durationMs?: number;
  ok?: boolean;
  error?: { code: string; message: string };
}

/** A finished planner task as `POST /api/task` answers it. */
export interface TaskRunView {
  taskId: string;
  success: boolean;
  summary: string;
  result?: unknown;
  error: string | null;
  steps: number;
  logs: string[];
  /** A task of the store: the worker that finished it and its attempts (more than one: taken over). */
  worker?: { executorId: string; attempts: number };
}

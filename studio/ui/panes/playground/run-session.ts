import { api, ApiError, onEvent } from '../../api.js';
import type { CodeRunView, TimelineCall } from '../../types.js';

/** The last run of this tab, shown again when the pane is opened again (after a reload too). */
const LAST_RUN_KEY = 'agent-spaces-studio-last-run';

/**
 * The playground's run outlives the pane: a person who leaves it to approve a call in the Approvals
 * pane finds the run going on, or its result, when they come back.
 */
export const session: {
  running: boolean;
  runId?: string;
  live: TimelineCall[];
  liveLogs: string[];
  notice?: string;
  worker?: string;
  last?: CodeRunView;
  /** Why the studio could not run the program (its API refused or could not be reached). */
  failure?: { code: string; message: string };
  /** The open pane's hooks (none while another pane is open). */
  view?: { redraw(): void; finished(): void };
} = { running: false, live: [], liveLogs: [] };

let following = false;
/** Follows the playground's run as its events arrive, whichever pane is open. */
export function followRuns(): void {
  if (following) return;
  following = true;
  const ours = (event: Record<string, unknown>): boolean => {
    if (!session.running || typeof event.runId !== 'string' || !event.runId.startsWith('studio-') || event.runId.startsWith('studio-call-'))
      return false;
    session.runId ??= event.runId;
    return event.runId === session.runId;
  };
  const changed = (): void => session.view?.redraw();
  onEvent('tool-call-start', (event) => {
    if (!ours(event)) return;
    session.live.push({
      callId: String(event.callId),
      capability: String(event.capability),
      function: String(event.function),
      args: String(event.args),
      startedAt: Date.parse(String(event.timestamp)),
    });
    changed();
  });
  onEvent('tool-call-end', (event) => {
    const call = session.live.find((entry) => entry.callId === event.callId);
    if (!call) return;
    Object.assign(call, { durationMs: Number(event.durationMs), ok: Boolean(event.ok), ...(event.error ? { error: event.error } : {}) });
    changed();
  });
  followWorker(ours, changed);
  onEvent('run-log', (event) => {
    if (!ours(event)) return;
    session.liveLogs.push(`${event.level === 'log' ? '' : `[${String(event.level)}] `}${String(event.message)}`);
    changed();
  });
}

/** With a store, a worker runs the program: the page says when none is alive, and who took it. */
function followWorker(ours: (event: Record<string, unknown>) => boolean, changed: () => void): void {
  onEvent('run-waiting-for-worker', (event) => {
    if (!ours(event)) return;
    session.notice = `Queued in the store ${String(event.store)}, but no worker is running: start one with "agent-spaces worker". The run starts as soon as a worker is up, and stays queued in the store if you leave.`;
    changed();
  });
  onEvent('run-started', (event) => {
    if (!ours(event)) return;
    session.notice = undefined;
    const attempt = Number(event.attempt);
    session.worker =
      attempt > 1
        ? `Taken over by worker ${String(event.executorId)} (attempt ${attempt}; ${Number(event.replayedCalls)} finished calls answered from the journal)`
        : `Running on worker ${String(event.executorId)}`;
    changed();
  });
}

/** Starts a run; its outcome lands in the session, for whichever playground pane is open then. */
export async function startRun(code: string, name: string): Promise<void> {
  Object.assign(session, {
    running: true,
    runId: undefined,
    live: [],
    liveLogs: [],
    notice: undefined,
    worker: undefined,
    last: undefined,
    failure: undefined,
  });
  session.view?.redraw();
  try {
    session.last = await api<CodeRunView>('POST', '/api/run', { code, ...(name.trim() ? { name: name.trim() } : {}) });
    if (!session.last.worker) sessionStorage.setItem(LAST_RUN_KEY, session.last.runId);
  } catch (error) {
    session.failure = { code: error instanceof ApiError ? error.code : 'STUDIO_UNREACHABLE', message: (error as Error).message };
  } finally {
    session.running = false;
    session.view?.finished();
  }
}

/** After a reload: the tab's last run, read back from the run folder, unless a run started meanwhile. */
export function restoreLastRun(draw: () => void): void {
  const last = sessionStorage.getItem(LAST_RUN_KEY);
  if (!last) return;
  void api<CodeRunView & { kind: string }>('GET', `/api/runs/${encodeURIComponent(last)}`).then(
    (record) => {
      if (record.kind !== 'code-run' || session.running || session.last) return;
      session.last = record;
      draw();
    },
    () => sessionStorage.removeItem(LAST_RUN_KEY),
  );
}

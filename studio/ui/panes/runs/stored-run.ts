import { h, jsonBlock, replace } from '../../dom.js';
import { errorView } from '../../error-view.js';
import type { RunErrorView, StoredRunView } from '../../types.js';

/** A durable run of the store: what was asked, its status, what its workers reported, its result. */
export function showStoredRun(detail: HTMLElement, run: StoredRunView): void {
  const lines = run.events.filter((event) => event.kind !== 'planner').map(describeStoredEvent);
  const ended = run.status !== 'ENQUEUED' && run.status !== 'PENDING';
  replace(
    detail,
    h('h3', {}, `${run.kind === 'stored-task' ? 'Task' : 'Run'} ${run.id} in the store`),
    h(
      'p',
      { class: 'muted' },
      `${new Date(run.createdAt).toLocaleString()} · ${run.store} · status ${run.status}${run.executorId ? ` · worker ${run.executorId}` : ''}`,
    ),
    run.status === 'ENQUEUED' ? h('p', { class: 'warn' }, 'Queued: no worker took it yet (start one with agent-spaces worker).') : null,
    run.task !== undefined
      ? h('p', {}, h('strong', {}, 'Task: '), run.task)
      : h('pre', { 'aria-label': 'Program', tabindex: 0 }, run.code ?? ''),
    h('h4', {}, 'What its workers reported'),
    lines.length ? h('pre', { 'aria-label': 'Run events', tabindex: 0 }, lines.join('\n')) : h('p', { class: 'muted' }, 'Nothing yet.'),
    h('h4', {}, ended ? 'Result' : 'Result (not ended yet)'),
    ended ? storedOutcome(run.result) : null,
  );
}

/** A stored run's result: a failed run's error as a message, anything else as JSON. */
function storedOutcome(result: unknown): HTMLElement {
  const outcome =
    typeof result === 'object' && result !== null ? (result as { success?: unknown; error?: unknown; result?: unknown }) : undefined;
  if (outcome?.success === false && typeof outcome.error === 'object' && outcome.error !== null)
    return errorView(outcome.error as RunErrorView);
  if (outcome?.success === true && 'result' in outcome) return jsonBlock(outcome.result, 'Outcome');
  return jsonBlock(result, 'Outcome');
}

/** One line of what a worker reported of a stored run. */
function describeStoredEvent(event: Record<string, unknown> & { kind: string }): string {
  switch (event.kind) {
    case 'started':
      return Number(event.attempt) > 1
        ? `taken over by worker ${String(event.executorId)} (attempt ${Number(event.attempt)}, ${Number(event.replayedCalls)} calls from the journal)`
        : `started on worker ${String(event.executorId)}`;
    case 'log': {
      const log = event.log as { level?: string; message?: string } | undefined;
      return `${log?.level && log.level !== 'log' ? `[${log.level}] ` : ''}${log?.message ?? ''}`;
    }
    case 'approval-required':
      return `waiting for approval ${String(event.approvalId)}: ${String(event.capability)}.${String(event.function)}`;
    case 'approval-decided':
      return `approval ${String(event.approvalId)} ${event.approved ? 'approved' : 'denied'}${event.reason ? ` (${String(event.reason)})` : ''}`;
    case 'end':
      return 'ended';
    default:
      return event.kind;
  }
}

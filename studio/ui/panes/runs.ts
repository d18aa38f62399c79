import { api } from '../api.js';
import { h, jsonBlock, replace } from '../dom.js';
import { renderTimeline } from '../timeline.js';
import { errorView } from '../error-view.js';
import type { CodeRunView, ReplayView, RunErrorView, RunListView, RunSummary, StoredRunView } from '../types.js';

type TraceEvent = Record<string, unknown> & { type: string; step: number; timestamp: string };

const KIND_NAMES: Record<RunSummary['kind'], string> = {
  task: 'task',
  'code-run': 'code run',
  'stored-run': 'run in the store',
  'stored-task': 'task in the store',
};

/** What a run came to: a stored run's status says whether it waits for a worker or runs now. */
function outcome(run: RunSummary): string {
  if (run.status === 'ENQUEUED') return 'queued: waiting for a worker';
  if (run.status === 'PENDING') return `running${run.executorId ? ` on ${run.executorId}` : ''}`;
  if (run.success === undefined) return run.status ? run.status.toLowerCase() : 'unfinished';
  return run.success ? 'ok' : `failed${run.error ? `: ${run.error}` : ''}`;
}

/** The run folder: planner tasks (their traces) and the studio's code runs. */
export function runsPane(root: HTMLElement, route: string[]): void {
  const table = h('tbody', {});
  const detail = h(
    'section',
    { class: 'panel', 'aria-label': 'Run', 'aria-live': 'polite' },
    h('p', { class: 'muted' }, 'Open a run to see its steps, model replies, tool calls, budget and cost.'),
  );
  const folder = h('p', { class: 'muted' });
  replace(
    root,
    h('h2', {}, 'Runs and traces'),
    folder,
    h(
      'section',
      { class: 'panel' },
      h(
        'table',
        { 'aria-label': 'Runs' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, 'When'),
            h('th', {}, 'Kind'),
            h('th', {}, 'What'),
            h('th', {}, 'Outcome'),
            h('th', {}, 'Steps / calls'),
            h('th', {}, 'Cost'),
          ),
        ),
        table,
      ),
    ),
    detail,
  );

  void api<RunListView>('GET', '/api/runs').then(({ runsDir, runs, store }) => {
    folder.textContent = `Run folder: ${runsDir}${store ? ` · store: ${store.url}${store.problem ? ` (${store.problem})` : ''}` : ''}`;
    if (runs.length === 0)
      replace(
        table,
        h(
          'tr',
          {},
          h('td', { colspan: 6, class: 'muted' }, 'No runs yet: run a program in the Playground, or a task with agent-spaces task.'),
        ),
      );
    else
      replace(
        table,
        ...runs.map((run) =>
          h(
            'tr',
            {},
            h('td', {}, new Date(run.modifiedAt).toLocaleString()),
            h('td', {}, KIND_NAMES[run.kind] ?? run.kind),
            h('td', {}, h('a', { href: `#/runs/${encodeURIComponent(run.id)}`, 'data-run': run.id }, run.title || run.id)),
            h('td', { class: run.success === false ? 'error' : run.success ? 'ok' : '', 'data-status': run.status ?? '' }, outcome(run)),
            h('td', {}, `${run.steps ?? '–'} / ${run.calls ?? '–'}`),
            h('td', {}, run.costUsd === undefined ? '–' : `$${run.costUsd.toFixed(4)}`),
          ),
        ),
      );
  });
  if (route[0]) void openRun(route[0]);

  async function openRun(id: string): Promise<void> {
    try {
      const run = await api<{ kind: string; file: string } & Record<string, unknown>>('GET', `/api/runs/${encodeURIComponent(id)}`);
      if (run.kind === 'task') showTrace(id, run as unknown as { task: string; model: string; file: string; events: TraceEvent[] });
      else if (run.kind === 'stored-run' || run.kind === 'stored-task') showStoredRun(detail, run as unknown as StoredRunView);
      else showCodeRun(run as unknown as CodeRunView & { file: string });
    } catch (error) {
      replace(detail, h('p', { class: 'error' }, (error as Error).message));
    }
  }

  function showTrace(id: string, trace: { task: string; model: string; file: string; events: TraceEvent[] }): void {
    const finish = trace.events.find((event) => event.type === 'task-finish') as
      (TraceEvent & { success: boolean; summary: string; usage: Record<string, unknown> }) | undefined;
    const start = trace.events.find((event) => event.type === 'task-start') as (TraceEvent & { budget: unknown }) | undefined;
    replace(
      detail,
      h('h3', {}, `Task ${id}`),
      h('p', {}, h('strong', {}, 'Task: '), trace.task),
      h('p', { class: 'muted' }, `Model ${trace.model} · trace ${trace.file}`),
      h(
        'div',
        { class: 'row' },
        replayButton(id),
        h('span', { class: 'muted' }, 'or ', h('code', {}, `agent-spaces task --replay ${trace.file}`)),
      ),
      finish
        ? h('p', { class: finish.success ? 'ok' : 'error' }, finish.success ? 'Finished: ' : 'Failed: ', finish.summary)
        : h('p', { class: 'warn' }, 'No task-finish event: the task did not finish.'),
      h('h4', {}, 'Budget and usage'),
      jsonBlock({ budget: start?.budget, usage: finish?.usage }, 'Budget and usage'),
      h('h4', {}, `Steps (${trace.events.length} events)`),
      h(
        'table',
        { 'aria-label': 'Trace events' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Step'), h('th', {}, 'Event'), h('th', {}, 'Details'))),
        h(
          'tbody',
          {},
          ...trace.events.map((event) =>
            h('tr', { 'data-event': event.type }, h('td', {}, event.step), h('td', {}, event.type), h('td', {}, describe(event))),
          ),
        ),
      ),
    );
  }

  function replayButton(id: string): HTMLElement {
    const button = h('button', { type: 'button' }, 'Replay');
    const outcome = h('span', { role: 'status' });
    button.addEventListener('click', async () => {
      button.disabled = true;
      outcome.textContent = 'Replaying the recorded model replies against the tools…';
      try {
        const replay = await api<ReplayView>('POST', `/api/runs/${encodeURIComponent(id)}/replay`, {});
        replace(
          outcome,
          replay.success ? 'Replayed: ' : 'The replay failed: ',
          replay.summary,
          ' (',
          h('a', { href: `#/runs/${encodeURIComponent(replay.id)}` }, 'open the replay'),
          ')',
        );
      } catch (error) {
        outcome.textContent = (error as Error).message;
      } finally {
        button.disabled = false;
      }
    });
    return h('span', {}, button, ' ', outcome);
  }

  function showCodeRun(run: CodeRunView & { file: string }): void {
    replace(
      detail,
      h('h3', {}, run.name ? `Code run “${run.name}”` : `Code run ${run.runId}`),
      h('p', { class: 'muted' }, `${new Date(run.startedAt).toLocaleString()} · ${run.runId} · ${run.file}`),
      h('pre', { 'aria-label': 'Program', tabindex: 0 }, run.code),
      h('h4', {}, run.result.success ? 'Result' : 'Error'),
      run.result.success ? jsonBlock(run.result.result, 'Outcome') : errorView(run.result.error),
      h('h4', {}, 'Logs'),
      h('pre', { tabindex: 0 }, run.result.logs.map((log) => log.message).join('\n') || '(none)'),
      h('h4', {}, 'Calls'),
      renderTimeline(run.calls),
    );
  }
}

/** A durable run of the store: what was asked, its status, what its workers reported, its result. */
function showStoredRun(detail: HTMLElement, run: StoredRunView): void {
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

/** A recorded error (`{ code, message }` or a string) in words. */
function errorWords(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof message === 'string') return `${typeof code === 'string' ? `${code}: ` : ''}${message}`;
  }
  return JSON.stringify(error);
}

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

/** One line of a trace event; model replies and tool calls in full, in a disclosure. */
function describe(event: TraceEvent): HTMLElement | string {
  const { type: _type, step: _step, timestamp: _timestamp, taskId: _taskId, ...rest } = event;
  switch (event.type) {
    case 'model-reply':
      return h('details', {}, h('summary', {}, `cost $${Number(event.costUsd ?? 0).toFixed(4)}`), jsonBlock(event.reply, 'Model reply'));
    case 'tool-call':
      return `${String(event.name)} ${event.ok ? 'ok' : 'failed'} in ${Number(event.durationMs).toFixed(1)} ms${event.error ? `: ${errorWords(event.error)}` : ''}`;
    case 'code-run':
      return `${event.ok ? 'ok' : 'failed'}, ${String(event.calls)} calls, ${Number(event.durationMs).toFixed(1)} ms${event.error ? `: ${errorWords(event.error)}` : ''}`;
    default:
      return h('details', {}, h('summary', {}, JSON.stringify(rest).slice(0, 120)), jsonBlock(rest));
  }
}

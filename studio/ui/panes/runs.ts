import { api } from '../api.js';
import { h, jsonBlock, replace } from '../dom.js';
import { errorView } from '../error-view.js';
import { renderTimeline } from '../timeline.js';
import type { CodeRunView, RunListView, RunSummary, RunView } from '../types.js';
import { showStoredRun } from './runs/stored-run.js';
import { showTrace } from './runs/task-trace.js';

const KIND_NAMES: Record<RunSummary['kind'], string> = {
  task: 'task',
  'code-run': 'code run',
  'stored-run': 'run in the store',
  'stored-task': 'task in the store',
};

/** The run folder: planner tasks (their traces) and the studio's code runs. */
export function runsPane(root: HTMLElement, route: string[]): void {
  const { table, detail, folder } = runsLayout(root);
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
    else replace(table, ...runs.map(runRow));
  });
  if (route[0]) void openRun(detail, route[0]);
}

/** The pane's frame: the run list, and the detail below. */
function runsLayout(root: HTMLElement) {
  const table = h('tbody', {});
  const detail = h(
    'section',
    { class: 'panel', 'aria-label': 'Run', 'aria-live': 'polite' },
    h('p', { class: 'muted' }, 'Open a run to see its steps, model replies, tool calls, budget and cost.'),
  );
  const folder = h('p', { class: 'muted' });
  const headings = ['When', 'Kind', 'What', 'Outcome', 'Steps / calls', 'Cost'];
  replace(
    root,
    h('h2', {}, 'Runs and traces'),
    folder,
    h(
      'section',
      { class: 'panel' },
      h('table', { 'aria-label': 'Runs' }, h('thead', {}, h('tr', {}, ...headings.map((heading) => h('th', {}, heading)))), table),
    ),
    detail,
  );
  return { table, detail, folder };
}

/** One run of the list: when, what kind, a link by its title, how it came out, steps and calls, cost. */
function runRow(run: RunSummary): HTMLElement {
  return h(
    'tr',
    {},
    h('td', {}, new Date(run.modifiedAt).toLocaleString()),
    h('td', {}, KIND_NAMES[run.kind] ?? run.kind),
    h('td', {}, h('a', { href: `#/runs/${encodeURIComponent(run.id)}`, 'data-run': run.id }, run.title || run.id)),
    h('td', { class: run.success === false ? 'error' : run.success ? 'ok' : '', 'data-status': run.status ?? '' }, outcome(run)),
    h('td', {}, `${run.steps ?? '–'} / ${run.calls ?? '–'}`),
    h('td', {}, run.costUsd === undefined ? '–' : `$${run.costUsd.toFixed(4)}`),
  );
}

/** What a run came to: a stored run's status says whether it waits for a worker or runs now. */
function outcome(run: RunSummary): string {
  if (run.status === 'ENQUEUED') return 'queued: waiting for a worker';
  if (run.status === 'PENDING') return `running${run.executorId ? ` on ${run.executorId}` : ''}`;
  if (run.success === undefined) return run.status ? run.status.toLowerCase() : 'unfinished';
  return run.success ? 'ok' : `failed${run.error ? `: ${run.error}` : ''}`;
}

/** One run in `detail`, drawn by its kind. */
async function openRun(detail: HTMLElement, id: string): Promise<void> {
  try {
    const run = await api<RunView>('GET', `/api/runs/${encodeURIComponent(id)}`);
    switch (run.kind) {
      case 'task':
        return showTrace(detail, run);
      case 'stored-run':
      case 'stored-task':
        return showStoredRun(detail, run);
      default:
        return showCodeRun(detail, run);
    }
  } catch (error) {
    replace(detail, h('p', { class: 'error' }, (error as Error).message));
  }
}

/** A code run of the studio: the program, its result or error, its logs and calls. */
function showCodeRun(detail: HTMLElement, run: CodeRunView & { file: string }): void {
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

import { api } from '../api.js';
import { h, replace } from '../dom.js';
import type { EvalRunListView, EvalRunSummary } from '../types.js';
import { showComparison } from './eval/comparison.js';
import { href } from './eval/eval-format.js';
import { showRun } from './eval/run-detail.js';

/** The eval runs of `agent-spaces eval`: arms side by side, tasks, transcripts, two runs compared. */
export function evalPane(root: HTMLElement, route: string[]): void {
  const { folder, runsBody, before, after, detail } = evalLayout(root);

  void api<EvalRunListView>('GET', '/api/eval/runs').then(({ evalDir, runs, more }) => {
    folder.textContent = `Eval folder: ${evalDir} · make a run with agent-spaces eval <suite> (its default --out lands here)${more ? ` · ${more} older run folder(s) not listed` : ''}`;
    if (runs.length === 0)
      replace(
        runsBody,
        h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No eval runs yet: run agent-spaces eval tau2-retail in this space.')),
      );
    else replace(runsBody, ...runs.map(runRow));
    const readable = runs.filter((run) => !run.problem);
    const options = (selected: string | undefined) =>
      readable.map((run) =>
        h('option', { value: run.id, selected: run.id === selected }, `${run.id} (${run.suite}, ${run.arms?.join('/')})`),
      );
    replace(before, ...options(route[0] === 'compare' ? route[1] : readable[1]?.id));
    replace(after, ...options(route[0] === 'compare' ? route[2] : readable[0]?.id));
  });

  const show = async (render: () => Promise<void>): Promise<void> => {
    try {
      await render();
    } catch (error) {
      replace(detail, h('p', { class: 'error' }, (error as Error).message));
    }
  };
  if (route[0] === 'compare' && route[1] && route[2]) void show(() => showComparison(detail, route[1] as string, route[2] as string));
  else if (route[0]) void show(() => showRun(detail, route[0] as string, route[1]));
}

/** The pane's frame: the run list with its Compare row, and the detail below. */
function evalLayout(root: HTMLElement) {
  const folder = h('p', { class: 'muted' });
  const runsBody = h('tbody', {});
  const before = h('select', { 'aria-label': 'Before' });
  const after = h('select', { 'aria-label': 'After' });
  const compare = h('button', { type: 'button', class: 'primary' }, 'Compare');
  compare.addEventListener('click', () => {
    if (before.value && after.value) location.hash = href('compare', before.value, after.value);
  });
  const detail = h(
    'section',
    { class: 'panel', 'aria-label': 'Eval run', 'aria-live': 'polite' },
    h('p', { class: 'muted' }, 'Open a run to see its arms side by side and every task; pick two runs to compare them.'),
  );
  const headings = ['Run', 'Suite', 'Model', 'Tasks', 'Passed per arm', 'Started'];
  replace(
    root,
    h('h2', {}, 'Eval runs'),
    folder,
    h(
      'section',
      { class: 'panel' },
      h('table', { 'aria-label': 'Eval runs' }, h('thead', {}, h('tr', {}, ...headings.map((heading) => h('th', {}, heading)))), runsBody),
      h(
        'div',
        { class: 'row compare-row' },
        h('strong', {}, 'Compare'),
        h('label', {}, 'before ', before),
        h('span', { 'aria-hidden': 'true' }, '→'),
        h('label', {}, 'after ', after),
        compare,
      ),
    ),
    detail,
  );
  return { folder, runsBody, before, after, detail };
}

/** One run of the list: a link to it, its suite and model, tasks (and how far it got), passes per arm. */
function runRow(run: EvalRunSummary): HTMLElement {
  if (run.problem) return h('tr', {}, h('td', {}, run.id), h('td', { colspan: 5, class: 'error' }, run.problem));
  return h(
    'tr',
    {},
    h('td', {}, h('a', { href: href(run.id), 'data-eval-run': run.id }, run.id)),
    h('td', {}, run.suite),
    h('td', {}, run.model),
    h('td', {}, `${run.tasks} × ${run.repeat}${run.results !== run.expected ? ` (${run.results}/${run.expected} done)` : ''}`),
    h(
      'td',
      {},
      ...(run.outcomes ?? []).map((outcome) =>
        h(
          'span',
          { class: `tag ${outcome.successes === outcome.runs ? 'ok' : 'error'}` },
          `${outcome.arm} ${outcome.successes}/${outcome.runs}`,
        ),
      ),
    ),
    h('td', {}, run.startedAt ? new Date(run.startedAt).toLocaleString() : '–'),
  );
}

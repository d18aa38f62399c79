import { api } from '../api.js';
import { h, replace } from '../dom.js';
import type {
  EvalArm,
  EvalArmView,
  EvalComparisonView,
  EvalDelta,
  EvalMetrics,
  EvalRunListView,
  EvalRunSummary,
  EvalRunView,
  EvalTaskView,
  EvalTranscriptEntry,
  EvalTranscriptView,
} from '../types.js';

/** The metrics shown per arm: how to print one, and whether less is better (for bars and deltas). */
const METRICS: { key: keyof EvalMetrics; label: string; format: (value: number) => string; lessIsBetter: boolean }[] = [
  { key: 'success', label: 'Success', format: (value) => `${Math.round(value * 100)}%`, lessIsBetter: false },
  { key: 'turns', label: 'Model turns', format: (value) => value.toFixed(1), lessIsBetter: true },
  { key: 'promptTokens', label: 'Prompt tokens', format: (value) => Math.round(value).toLocaleString('en-US'), lessIsBetter: true },
  { key: 'completionTokens', label: 'Completion tokens', format: (value) => Math.round(value).toLocaleString('en-US'), lessIsBetter: true },
  { key: 'toolCalls', label: 'Tool calls', format: (value) => value.toFixed(1), lessIsBetter: true },
  { key: 'codeRuns', label: 'Code runs', format: (value) => value.toFixed(1), lessIsBetter: true },
  { key: 'searches', label: 'Searches', format: (value) => value.toFixed(1), lessIsBetter: true },
  { key: 'wallMs', label: 'Wall time', format: (value) => `${(value / 1000).toFixed(2)} s`, lessIsBetter: true },
  { key: 'costUsd', label: 'Cost per task', format: (value) => `$${value.toFixed(5)}`, lessIsBetter: true },
];

const KIND_LABELS: Record<EvalTranscriptEntry['kind'], string> = {
  system: 'system',
  user: 'task',
  assistant: 'model',
  'tool-call': 'tool call',
  search: 'search',
  code: 'program',
  'tool-result': 'result',
  'code-result': 'program result',
  answer: 'answer',
  event: 'event',
};

const compact = (value: number) => (value >= 10_000 ? `${(value / 1000).toFixed(1)}k` : Math.round(value).toLocaleString('en-US'));
const href = (...parts: string[]) => `#/eval/${parts.map(encodeURIComponent).join('/')}`;

function pill(success: number | boolean | undefined): HTMLElement {
  const share = typeof success === 'boolean' ? (success ? 1 : 0) : success;
  if (share === undefined) return h('span', { class: 'pill' }, '–');
  const text = share === 1 ? 'pass' : share === 0 ? 'fail' : `${Math.round(share * 100)}%`;
  return h('span', { class: `pill ${share === 1 ? 'pass' : 'fail'}` }, text);
}

/** The eval runs of `agent-spaces eval`: arms side by side, tasks, transcripts, two runs compared. */
export function evalPane(root: HTMLElement, route: string[]): void {
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
  replace(
    root,
    h('h2', {}, 'Eval runs'),
    folder,
    h(
      'section',
      { class: 'panel' },
      h(
        'table',
        { 'aria-label': 'Eval runs' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, 'Run'),
            h('th', {}, 'Suite'),
            h('th', {}, 'Model'),
            h('th', {}, 'Tasks'),
            h('th', {}, 'Passed per arm'),
            h('th', {}, 'Started'),
          ),
        ),
        runsBody,
      ),
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

  if (route[0] === 'compare' && route[1] && route[2]) void show(() => showComparison(route[1] as string, route[2] as string));
  else if (route[0]) void show(() => showRun(route[0] as string, route[1]));

  async function show(render: () => Promise<void>): Promise<void> {
    try {
      await render();
    } catch (error) {
      replace(detail, h('p', { class: 'error' }, (error as Error).message));
    }
  }

  async function showRun(id: string, taskId: string | undefined): Promise<void> {
    const run = await api<EvalRunView>('GET', `/api/eval/runs/${encodeURIComponent(id)}`);
    const onlyDiffering = h('input', { type: 'checkbox', id: 'eval-differ' });
    const tasksBody = h('tbody', {});
    const transcript = h('section', { class: 'transcripts', 'aria-label': 'Transcript' });
    const bySpread = h('input', { type: 'checkbox', id: 'eval-spread' });
    const fillTasks = () => {
      const shown = run.tasks.filter((task) => !onlyDiffering.checked || task.outcomesDiffer);
      if (bySpread.checked) shown.sort((a, b) => b.spread - a.spread);
      replace(tasksBody, ...shown.map((task) => taskRow(run, task)));
    };
    onlyDiffering.addEventListener('change', fillTasks);
    bySpread.addEventListener('change', fillTasks);
    fillTasks();
    const differing = run.tasks.filter((task) => task.outcomesDiffer).length;
    replace(
      detail,
      h('h3', {}, `Run ${run.id}`),
      h(
        'p',
        { class: 'muted' },
        `${run.suite} · model ${run.model} · ${run.tasks.length} tasks × ${run.repeat} · started ${new Date(run.startedAt).toLocaleString()} · cost priced as ${run.priceAs} · ${run.dir}`,
      ),
      run.problems.length
        ? h(
            'div',
            { class: 'error-message', role: 'alert' },
            h('p', {}, h('strong', {}, `${run.problems.length} file(s) of this run could not be read:`)),
            ...run.problems.slice(0, 20).map((problem) => h('p', { class: 'mono' }, problem)),
          )
        : null,
      armsTable(run.armViews),
      run.goals.length
        ? h(
            'ul',
            { class: 'goals', 'aria-label': 'Goals' },
            ...run.goals.map((goal) =>
              h(
                'li',
                {},
                h('span', { class: `pill ${goal.met ? 'pass' : 'fail'}` }, goal.met ? 'met' : 'not met'),
                ' ',
                h('strong', {}, goal.goal),
                h('span', { class: 'muted' }, ` — ${goal.detail}`),
              ),
            ),
          )
        : null,
      h(
        'div',
        { class: 'row' },
        h('h4', {}, 'Tasks'),
        h('label', { for: 'eval-differ', class: 'muted' }, onlyDiffering, ` only tasks where the arms' outcomes differ (${differing})`),
        h('label', { for: 'eval-spread', class: 'muted' }, bySpread, ' largest spread of prompt tokens first'),
      ),
      h(
        'table',
        { 'aria-label': 'Tasks', class: 'eval-tasks' },
        h(
          'thead',
          {},
          h('tr', {}, h('th', {}, 'Task'), h('th', {}, 'Calls'), ...run.arms.map((arm) => h('th', {}, arm)), h('th', {}, 'Spread')),
        ),
        tasksBody,
      ),
      transcript,
    );
    if (taskId) await showTranscripts(run, taskId, transcript);
  }

  async function showTranscripts(run: EvalRunView, taskId: string, into: HTMLElement): Promise<void> {
    const views = await Promise.all(
      run.arms.map((arm) =>
        api<EvalTranscriptView>(
          'GET',
          `/api/eval/runs/${encodeURIComponent(run.id)}/transcripts/${arm}/${encodeURIComponent(taskId)}/1`,
        ).catch((error: Error) => ({ arm, error: error.message })),
      ),
    );
    replace(
      into,
      h('h3', {}, `Task ${taskId}: transcripts`),
      h(
        'div',
        { class: 'transcript-columns', style: `--arms: ${views.length}` },
        ...views.map((view) =>
          'error' in view
            ? h('div', { class: 'panel' }, h('h4', {}, view.arm), h('p', { class: 'error' }, view.error))
            : transcriptColumn(view),
        ),
      ),
    );
    into.scrollIntoView({ block: 'start' });
  }

  async function showComparison(beforeId: string, afterId: string): Promise<void> {
    const view = await api<EvalComparisonView>(
      'GET',
      `/api/eval/compare?before=${encodeURIComponent(beforeId)}&after=${encodeURIComponent(afterId)}`,
    );
    const changedOnly = h('input', { type: 'checkbox', id: 'eval-changed' });
    const body = h('tbody', {});
    const arms = view.arms.map((arm) => arm.arm);
    const common = view.tasks.filter(
      (task) => Object.values(task.arms).some((delta) => delta.before) && Object.values(task.arms).some((delta) => delta.after),
    ).length;
    const sameTasks = common === view.tasks.length;
    const fill = () =>
      replace(
        body,
        ...view.tasks
          .filter((task) => !changedOnly.checked || task.outcomeChanged)
          .map((task) =>
            h(
              'tr',
              { class: task.outcomeChanged ? 'changed' : '' },
              h('td', {}, task.taskId),
              ...arms.map((arm) => h('td', {}, taskDelta(task.arms[arm]))),
            ),
          ),
      );
    changedOnly.addEventListener('change', fill);
    fill();
    replace(
      detail,
      h('h3', {}, `Comparison: ${view.before.id} → ${view.after.id}`),
      h('p', { class: 'muted' }, `before: ${describeRun(view.before)} · after: ${describeRun(view.after)}`),
      sameTasks
        ? null
        : h(
            'p',
            { class: 'warn' },
            `The runs cover different tasks (${view.tasks.length - common} of ${view.tasks.length} in one run only): the arms' means below are over different tasks; compare the ${common} common tasks row by row.`,
          ),
      h(
        'table',
        { 'aria-label': 'Arms compared', class: 'eval-compare' },
        h(
          'thead',
          {},
          h('tr', {}, h('th', {}, 'Metric'), ...arms.map((arm) => h('th', { colspan: 3 }, arm))),
          h(
            'tr',
            {},
            h('th', {}),
            ...arms.flatMap(() => [
              h('th', { class: 'num' }, 'before'),
              h('th', { class: 'num' }, 'after'),
              h('th', { class: 'num' }, 'Δ'),
            ]),
          ),
        ),
        h(
          'tbody',
          {},
          ...METRICS.map((metric) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, metric.label),
              ...view.arms.flatMap((arm) => [
                h('td', { class: 'num' }, arm.before ? metric.format(arm.before[metric.key]) : '–'),
                h('td', { class: 'num' }, arm.after ? metric.format(arm.after[metric.key]) : '–'),
                h('td', { class: 'num' }, deltaCell(arm, metric)),
              ]),
            ),
          ),
        ),
      ),
      h(
        'div',
        { class: 'row' },
        h('h4', {}, 'Tasks'),
        h(
          'label',
          { for: 'eval-changed', class: 'muted' },
          changedOnly,
          ` only tasks whose outcome changed (${view.tasks.filter((task) => task.outcomeChanged).length})`,
        ),
      ),
      h(
        'table',
        { 'aria-label': 'Tasks compared' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Task'), ...arms.map((arm) => h('th', {}, arm)))),
        body,
      ),
    );
  }
}

function describeRun(run: EvalRunSummary): string {
  return `${run.suite}, ${run.model}, ${run.arms?.join('/')}, ${run.tasks} tasks`;
}

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

/** Arms side by side: one row per metric, a bar per arm scaled to the largest, the best marked. */
function armsTable(arms: EvalArmView[]): HTMLElement {
  return h(
    'table',
    { 'aria-label': 'Arms', class: 'eval-arms' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', {}, 'Per task (mean)'),
        ...arms.map((arm) => h('th', { scope: 'col' }, arm.arm, h('span', { class: 'muted' }, ` ${arm.successes}/${arm.runs}`))),
      ),
    ),
    h(
      'tbody',
      {},
      ...METRICS.map((metric) => {
        const values = arms.map((arm) => arm[metric.key]);
        const largest = Math.max(...values, 0);
        const best = metric.lessIsBetter ? Math.min(...values) : Math.max(...values);
        return h(
          'tr',
          { 'data-metric': metric.key },
          h('th', { scope: 'row' }, metric.label),
          ...arms.map((arm) => {
            const value = arm[metric.key];
            const isBest = arms.length > 1 && value === best && new Set(values).size > 1;
            return h(
              'td',
              { class: isBest ? 'best' : '' },
              h(
                'div',
                { class: 'metric' },
                h('span', { class: 'metric-value' }, metric.format(value)),
                h(
                  'span',
                  { class: 'metric-track' },
                  h('span', { class: `metric-bar arm-${arm.arm}`, style: `width: ${largest > 0 ? (100 * value) / largest : 0}%` }),
                ),
              ),
            );
          }),
        );
      }),
    ),
  );
}

function taskRow(run: EvalRunView, task: EvalTaskView): HTMLElement {
  return h(
    'tr',
    { class: task.outcomesDiffer ? 'changed' : '', 'data-task': task.taskId },
    h('td', {}, h('a', { href: href(run.id, task.taskId), 'aria-label': `Transcripts of task ${task.taskId}` }, `task ${task.taskId}`)),
    h('td', { class: 'num' }, task.calls),
    ...run.arms.map((arm) => {
      const cell = task.arms[arm];
      if (!cell) return h('td', { class: 'muted' }, 'not run');
      return h(
        'td',
        { title: cell.reasons.join('\n') },
        pill(cell.success),
        ' ',
        h(
          'span',
          { class: 'muted' },
          `${cell.turns.toFixed(0)} turns · ${compact(cell.promptTokens)} tok · ${cell.toolCalls.toFixed(0)} calls`,
        ),
      );
    }),
    h('td', { class: 'num' }, `${task.spread.toFixed(2)}×`),
  );
}

function transcriptColumn(view: EvalTranscriptView): HTMLElement {
  return h(
    'div',
    { class: 'panel transcript', 'aria-label': `Transcript ${view.arm}` },
    h('h4', {}, view.arm, ' ', pill(view.success), h('span', { class: 'muted' }, ` ${view.entries.length} steps`)),
    view.reasons.length ? h('p', { class: 'error' }, view.reasons.join('; ')) : null,
    view.truncated ? h('p', { class: 'warn' }, 'Long: some steps are cut.') : null,
    h('ol', { class: 'steps' }, ...view.entries.map(entryView)),
  );
}

function entryView(entry: EvalTranscriptEntry): HTMLElement {
  const label = h('span', { class: `tag kind-${entry.kind}` }, KIND_LABELS[entry.kind]);
  const title = entry.title ? h('strong', { class: 'mono' }, ` ${entry.title}`) : null;
  const failed = entry.ok === false ? h('span', { class: 'error' }, ' failed') : null;
  const long = entry.kind === 'system' || entry.text.length > 1200;
  const body = h('pre', { tabindex: 0 }, entry.text);
  return h(
    'li',
    { class: `step kind-${entry.kind}`, 'data-kind': entry.kind },
    long
      ? h(
          'details',
          {},
          h('summary', {}, label, title, failed, h('span', { class: 'muted' }, ` ${entry.text.length.toLocaleString('en-US')} characters`)),
          body,
        )
      : [h('div', {}, label, title, failed), body],
  );
}

function deltaCell(arm: { arm: EvalArm } & EvalDelta, metric: (typeof METRICS)[number]): HTMLElement | string {
  if (!arm.delta || !arm.before) return '–';
  return deltaText(arm.delta[metric.key], arm.before[metric.key], metric);
}

function deltaText(delta: number, before: number, metric: (typeof METRICS)[number]): HTMLElement {
  if (Math.abs(delta) < 1e-9) return h('span', { class: 'delta same' }, '=');
  if (metric.format(Math.abs(delta)) === metric.format(0)) return h('span', { class: 'delta same', title: String(delta) }, '≈');
  const better = metric.lessIsBetter ? delta < 0 : delta > 0;
  const percent = before !== 0 && metric.key !== 'success' ? ` (${delta > 0 ? '+' : ''}${Math.round((100 * delta) / before)}%)` : '';
  const shown =
    metric.key === 'success'
      ? `${delta > 0 ? '+' : ''}${Math.round(delta * 100)} pts`
      : `${delta > 0 ? '+' : '−'}${metric.format(Math.abs(delta))}${percent}`;
  return h('span', { class: `delta ${better ? 'better' : 'worse'}` }, shown);
}

function taskDelta(delta: EvalDelta | undefined): HTMLElement | string {
  if (!delta) return '–';
  if (!delta.before || !delta.after || !delta.delta)
    return h('span', { class: 'muted' }, delta.after ? 'after only: ' : 'before only: ', pill((delta.after ?? delta.before)?.success));
  const tokens = METRICS[2] as (typeof METRICS)[number];
  const turns = METRICS[1] as (typeof METRICS)[number];
  return h(
    'span',
    {},
    pill(delta.before.success),
    ' → ',
    pill(delta.after.success),
    ' ',
    h('span', { class: 'muted' }, 'tokens '),
    deltaText(delta.delta.promptTokens, delta.before.promptTokens, tokens),
    h('span', { class: 'muted' }, ' turns '),
    deltaText(delta.delta.turns, delta.before.turns, turns),
  );
}

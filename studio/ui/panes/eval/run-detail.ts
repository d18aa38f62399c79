import { api } from '../../api.js';
import { h, replace } from '../../dom.js';
import type { EvalArmView, EvalRunView, EvalTaskView } from '../../types.js';
import { compact, href, METRICS, pill } from './eval-format.js';
import { showTranscripts } from './transcripts.js';

/** One eval run in `detail`: its arms side by side, its goals, every task (filtered, sorted), and a task's transcripts. */
export async function showRun(detail: HTMLElement, id: string, taskId: string | undefined): Promise<void> {
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
    problemsNotice(run.problems),
    armsTable(run.armViews),
    goalsList(run.goals),
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

/** The files of the run that could not be read (the first twenty), if any. */
function problemsNotice(problems: string[]): HTMLElement | null {
  if (!problems.length) return null;
  return h(
    'div',
    { class: 'error-message', role: 'alert' },
    h('p', {}, h('strong', {}, `${problems.length} file(s) of this run could not be read:`)),
    ...problems.slice(0, 20).map((problem) => h('p', { class: 'mono' }, problem)),
  );
}

/** The suite's goals, each met or not, with why. */
function goalsList(goals: EvalRunView['goals']): HTMLElement | null {
  if (!goals.length) return null;
  return h(
    'ul',
    { class: 'goals', 'aria-label': 'Goals' },
    ...goals.map((goal) =>
      h(
        'li',
        {},
        h('span', { class: `pill ${goal.met ? 'pass' : 'fail'}` }, goal.met ? 'met' : 'not met'),
        ' ',
        h('strong', {}, goal.goal),
        h('span', { class: 'muted' }, ` — ${goal.detail}`),
      ),
    ),
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

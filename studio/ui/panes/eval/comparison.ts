import { api } from '../../api.js';
import { h, replace } from '../../dom.js';
import type { EvalArm, EvalComparisonView, EvalDelta, EvalRunSummary } from '../../types.js';
import { deltaText, METRICS, pill, type Metric } from './eval-format.js';

/** Two eval runs compared in `detail`: per arm and metric before, after and Δ, then task by task. */
export async function showComparison(detail: HTMLElement, beforeId: string, afterId: string): Promise<void> {
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
    common === view.tasks.length
      ? null
      : h(
          'p',
          { class: 'warn' },
          `The runs cover different tasks (${view.tasks.length - common} of ${view.tasks.length} in one run only): the arms' means below are over different tasks; compare the ${common} common tasks row by row.`,
        ),
    armsCompared(view.arms),
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

/** One row per metric; per arm three columns: before, after, and the change. */
function armsCompared(arms: EvalComparisonView['arms']): HTMLElement {
  return h(
    'table',
    { 'aria-label': 'Arms compared', class: 'eval-compare' },
    h(
      'thead',
      {},
      h('tr', {}, h('th', {}, 'Metric'), ...arms.map((arm) => h('th', { colspan: 3 }, arm.arm))),
      h(
        'tr',
        {},
        h('th', {}),
        ...arms.flatMap(() => [h('th', { class: 'num' }, 'before'), h('th', { class: 'num' }, 'after'), h('th', { class: 'num' }, 'Δ')]),
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
          ...arms.flatMap((arm) => [
            h('td', { class: 'num' }, arm.before ? metric.format(arm.before[metric.key]) : '–'),
            h('td', { class: 'num' }, arm.after ? metric.format(arm.after[metric.key]) : '–'),
            h('td', { class: 'num' }, deltaCell(arm, metric)),
          ]),
        ),
      ),
    ),
  );
}

function describeRun(run: EvalRunSummary): string {
  return `${run.suite}, ${run.model}, ${run.arms?.join('/')}, ${run.tasks} tasks`;
}

function deltaCell(arm: { arm: EvalArm } & EvalDelta, metric: Metric): HTMLElement | string {
  if (!arm.delta || !arm.before) return '–';
  return deltaText(arm.delta[metric.key], arm.before[metric.key], metric);
}

/** A task of one arm compared: outcome before → after, and the change of prompt tokens and turns. */
function taskDelta(delta: EvalDelta | undefined): HTMLElement | string {
  if (!delta) return '–';
  if (!delta.before || !delta.after || !delta.delta)
    return h('span', { class: 'muted' }, delta.after ? 'after only: ' : 'before only: ', pill((delta.after ?? delta.before)?.success));
  const tokens = METRICS[2] as Metric;
  const turns = METRICS[1] as Metric;
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

import { h } from '../../dom.js';
import type { EvalMetrics } from '../../types.js';

/** One metric shown per arm: how to print it, and whether less is better (for bars and deltas). */
export interface Metric {
  key: keyof EvalMetrics;
  label: string;
  format: (value: number) => string;
  lessIsBetter: boolean;
}

/** The metrics shown per arm, in order. */
export const METRICS: Metric[] = [
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

/** A count in few characters (12.3k past ten thousand). */
export const compact = (value: number) => (value >= 10_000 ? `${(value / 1000).toFixed(1)}k` : Math.round(value).toLocaleString('en-US'));

/** The pane's address for a run, a run's task, or a comparison. */
export const href = (...parts: string[]) => `#/eval/${parts.map(encodeURIComponent).join('/')}`;

/** Pass, fail, or the share that passed. */
export function pill(success: number | boolean | undefined): HTMLElement {
  const share = typeof success === 'boolean' ? (success ? 1 : 0) : success;
  if (share === undefined) return h('span', { class: 'pill' }, '–');
  const text = share === 1 ? 'pass' : share === 0 ? 'fail' : `${Math.round(share * 100)}%`;
  return h('span', { class: `pill ${share === 1 ? 'pass' : 'fail'}` }, text);
}

/** A change of a metric: equal, about equal, or better/worse by how much (and by what share of before). */
export function deltaText(delta: number, before: number, metric: Metric): HTMLElement {
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

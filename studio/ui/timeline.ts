import { h } from './dom.js';
import type { TimelineCall } from './types.js';

/**
 * The calls of a run on one time axis: calls that overlap go to separate lanes, so parallel calls are
 * side by side. Each bar says what was called, how long it took, and whether it failed.
 */
export function renderTimeline(calls: TimelineCall[]): HTMLElement {
  if (calls.length === 0) return h('p', { class: 'muted' }, 'No capability calls.');
  const start = Math.min(...calls.map((call) => call.startedAt));
  const end = Math.max(...calls.map((call) => call.startedAt + (call.durationMs ?? 0)));
  const span = Math.max(end - start, 1);
  const lanes: { end: number; calls: TimelineCall[] }[] = [];
  for (const call of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    const finish = call.startedAt + (call.durationMs ?? 0);
    const lane = lanes.find((candidate) => candidate.end <= call.startedAt);
    if (lane) {
      lane.calls.push(call);
      lane.end = finish;
    } else lanes.push({ end: finish, calls: [call] });
  }
  return h(
    'div',
    { class: 'timeline', role: 'list', 'aria-label': `Timeline of ${calls.length} calls over ${Math.round(span)} ms` },
    ...lanes.map((lane, index) =>
      h(
        'div',
        { class: 'lane', 'aria-label': `Lane ${index + 1}` },
        ...lane.calls.map((call) => {
          const left = ((call.startedAt - start) / span) * 100;
          const width = Math.max(((call.durationMs ?? 0) / span) * 100, 0.8);
          const label = `${call.capability}.${call.function} ${call.durationMs === undefined ? 'running' : `${call.durationMs.toFixed(1)} ms`}${call.ok === false ? ` failed: ${call.error?.code ?? ''}` : ''}`;
          return h('div', { class: `bar${call.ok === false ? ' failed' : ''}`, role: 'listitem', style: `left:${left}%;width:${Math.min(width, 100 - left)}%`, title: `${label}\narguments: ${call.args}${call.error ? `\n${call.error.message}` : ''}` }, label);
        }),
      ),
    ),
    h('table', { 'aria-label': 'Calls' }, h('thead', {}, h('tr', {}, h('th', {}, 'Call'), h('th', {}, 'Start'), h('th', {}, 'Duration'), h('th', {}, 'Arguments'), h('th', {}, 'Outcome'))), h('tbody', {}, ...calls.map((call) => h('tr', {}, h('td', { class: 'mono' }, `${call.capability}.${call.function}`), h('td', {}, `+${Math.round(call.startedAt - start)} ms`), h('td', {}, call.durationMs === undefined ? '…' : `${call.durationMs.toFixed(1)} ms`), h('td', { class: 'mono' }, call.args), h('td', { class: call.ok === false ? 'error' : 'ok' }, call.ok === undefined ? 'running' : call.ok ? 'ok' : `${call.error?.code}: ${call.error?.message}`))))),
  );
}

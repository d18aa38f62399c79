import { h } from './dom.js';
import type { TimelineCall } from './types.js';

/**
 * The calls of a run on one time axis, one row each (label left, bar right): calls that overlap in
 * time have bars side by side, and a short call keeps a readable label however small its bar is.
 */
export function renderTimeline(calls: TimelineCall[]): HTMLElement {
  if (calls.length === 0) return h('p', { class: 'muted' }, 'No capability calls.');
  const start = Math.min(...calls.map((call) => call.startedAt));
  const end = Math.max(...calls.map((call) => call.startedAt + (call.durationMs ?? 0)));
  const span = Math.max(end - start, 1);
  const ordered = [...calls].sort((a, b) => a.startedAt - b.startedAt);
  return h(
    'div',
    { class: 'timeline' },
    h(
      'div',
      {
        class: 'tracks',
        role: 'list',
        'aria-label': `Timeline of ${calls.length} call${calls.length === 1 ? '' : 's'} over ${Math.round(span)} ms`,
      },
      ...ordered.map((call) => {
        const left = ((call.startedAt - start) / span) * 100;
        const width = Math.min(Math.max(((call.durationMs ?? 0) / span) * 100, 0.5), 100 - left);
        const duration = call.durationMs === undefined ? 'running' : `${call.durationMs.toFixed(1)} ms`;
        const label = `${call.capability}.${call.function} ${duration}${call.ok === false ? ` failed: ${call.error?.code ?? ''}` : ''}`;
        return h(
          'div',
          {
            class: 'track-row',
            role: 'listitem',
            'aria-label': label,
            title: `${label}\narguments: ${call.args}${call.error ? `\n${call.error.message}` : ''}`,
          },
          h('span', { class: 'track-label mono' }, `${call.capability}.${call.function}`),
          h(
            'span',
            { class: 'track' },
            h('span', { class: `bar${call.ok === false ? ' failed' : ''}`, style: `left:${left}%;width:${width}%` }),
          ),
          h(
            'span',
            { class: `track-time${call.ok === false ? ' error' : ''}` },
            call.ok === false ? `${duration}, ${call.error?.code ?? 'failed'}` : duration,
          ),
        );
      }),
    ),
    h(
      'table',
      { 'aria-label': 'Calls' },
      h(
        'thead',
        {},
        h('tr', {}, h('th', {}, 'Call'), h('th', {}, 'Start'), h('th', {}, 'Duration'), h('th', {}, 'Arguments'), h('th', {}, 'Outcome')),
      ),
      h(
        'tbody',
        {},
        ...calls.map((call) =>
          h(
            'tr',
            {},
            h('td', { class: 'mono' }, `${call.capability}.${call.function}`),
            h('td', {}, `+${Math.round(call.startedAt - start)} ms`),
            h('td', {}, call.durationMs === undefined ? '…' : `${call.durationMs.toFixed(1)} ms`),
            h('td', { class: 'mono' }, call.args),
            h(
              'td',
              { class: call.ok === false ? 'error' : 'ok' },
              call.ok === undefined ? 'running' : call.ok ? 'ok' : `${call.error?.code}: ${call.error?.message}`,
            ),
          ),
        ),
      ),
    ),
  );
}

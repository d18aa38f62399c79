import { h, jsonBlock, replace } from '../../dom.js';
import { errorView } from '../../error-view.js';
import { renderTimeline } from '../../timeline.js';
import type { CodeRunView } from '../../types.js';
import { session } from './run-session.js';

/** Where the session is drawn: the Run button, the status line beside it, and the output panel. */
export interface RunOutputParts {
  run: HTMLButtonElement;
  status: HTMLElement;
  output: HTMLElement;
}

/** Draws what the session holds now: the run going on, its result, or the last run of this tab. */
export function drawSession({ run, status, output }: RunOutputParts, goTo: (line: number, column: number) => void): void {
  run.disabled = session.running;
  if (session.running) {
    status.textContent = session.worker
      ? 'Running on a worker… (a call that needs approval waits in the Approvals pane)'
      : session.notice
        ? 'Waiting for a worker…'
        : 'Running… (a call that needs approval waits in the Approvals pane)';
    replace(output, ...renderRunning());
  } else if (session.failure !== undefined) {
    status.textContent = '';
    replace(output, h('h3', {}, h('span', { class: 'error' }, 'The run could not start')), errorView(session.failure));
  } else if (session.last) {
    status.textContent = session.last.result.success ? `Done in ${Math.round(session.last.result.durationMs)} ms` : 'Failed';
    replace(output, ...renderRun(session.last, goTo));
  }
}

/** The run going on: who runs it, its calls and logs so far. */
function renderRunning(): (HTMLElement | null)[] {
  return [
    session.notice ? h('p', { id: 'run-notice', role: 'alert', class: 'warn' }, session.notice) : null,
    session.worker ? h('p', { id: 'run-worker', class: 'muted' }, session.worker) : null,
    h('h3', {}, 'Calls'),
    h('div', { id: 'live-timeline' }, renderTimeline(session.live)),
    h('h3', {}, 'Logs so far'),
    h('pre', { id: 'live-logs', 'aria-label': 'Logs so far', tabindex: 0 }, session.liveLogs.join('\n')),
  ];
}

/** A finished run: its result or error (the error's line moves the editor there), logs and calls. */
function renderRun(record: CodeRunView, goTo: (line: number, column: number) => void): (HTMLElement | null)[] {
  const { result } = record;
  return [
    h(
      'h3',
      {},
      result.success ? h('span', { class: 'ok' }, 'Result') : h('span', { class: 'error' }, 'Error'),
      record.name ? h('span', { class: 'muted' }, ` · ${record.name}`) : null,
    ),
    result.success ? jsonBlock(result.result, 'Result') : errorView(result.error, goTo),
    h(
      'p',
      { class: 'muted' },
      `${result.calls} call${result.calls === 1 ? '' : 's'}, ${Math.round(result.durationMs)} ms${result.timedOut ? ', timed out' : ''} · run ${record.runId} (`,
      h('a', { href: `#/runs/${record.runId}` }, 'open in Runs'),
      ')',
    ),
    record.worker
      ? h(
          'p',
          { class: 'muted', 'aria-label': 'Worker' },
          `Ran in the store on worker ${record.worker.executorId}${record.worker.attempts > 1 ? ` (attempt ${record.worker.attempts}: taken over from a worker that died)` : ''}.`,
        )
      : null,
    h('h3', {}, `Logs (${result.logs.length})`),
    result.logs.length
      ? h(
          'pre',
          { 'aria-label': 'Logs', tabindex: 0 },
          result.logs.map((log) => `${log.level === 'log' ? '' : `[${log.level}] `}${log.message}`).join('\n'),
        )
      : h('p', { class: 'muted' }, 'No logs.'),
    h('h3', {}, 'Calls'),
    record.worker
      ? h('p', { class: 'muted' }, 'A worker made the calls: their timeline stays with it (the store keeps their journal).')
      : renderTimeline(record.calls),
  ];
}

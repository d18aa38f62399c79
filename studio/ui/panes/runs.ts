import { api } from '../api.js';
import { h, jsonBlock, replace } from '../dom.js';
import { renderTimeline } from '../timeline.js';
import type { CodeRunView } from '../types.js';

interface RunSummary {
  id: string;
  kind: 'task' | 'code-run';
  modifiedAt: string;
  title: string;
  success?: boolean;
  steps?: number;
  calls?: number;
  costUsd?: number;
  durationMs?: number;
  error?: string;
}

type TraceEvent = Record<string, unknown> & { type: string; step: number; timestamp: string };

/** The run folder: planner tasks (their traces) and the studio's code runs. */
export function runsPane(root: HTMLElement, route: string[]): void {
  const table = h('tbody', {});
  const detail = h('section', { class: 'panel', 'aria-label': 'Run', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Open a run to see its steps, model replies, tool calls, budget and cost.'));
  const folder = h('p', { class: 'muted' });
  replace(
    root,
    h('h2', {}, 'Runs and traces'),
    folder,
    h('section', { class: 'panel' }, h('table', { 'aria-label': 'Runs' }, h('thead', {}, h('tr', {}, h('th', {}, 'When'), h('th', {}, 'Kind'), h('th', {}, 'What'), h('th', {}, 'Outcome'), h('th', {}, 'Steps / calls'), h('th', {}, 'Cost'))), table)),
    detail,
  );

  void api<{ runsDir: string; runs: RunSummary[] }>('GET', '/api/runs').then(({ runsDir, runs }) => {
    folder.textContent = `Run folder: ${runsDir}`;
    if (runs.length === 0) replace(table, h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No runs yet: run a program in the Playground, or a task with agent-spaces task.')));
    else
      replace(
        table,
        ...runs.map((run) =>
          h(
            'tr',
            {},
            h('td', {}, new Date(run.modifiedAt).toLocaleString()),
            h('td', {}, run.kind === 'task' ? 'task' : 'code run'),
            h('td', {}, h('a', { href: `#/runs/${encodeURIComponent(run.id)}`, 'data-run': run.id }, run.title || run.id)),
            h('td', { class: run.success === false ? 'error' : run.success ? 'ok' : '' }, run.success === undefined ? 'unfinished' : run.success ? 'ok' : `failed${run.error ? `: ${run.error}` : ''}`),
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
      else showCodeRun(run as unknown as CodeRunView & { file: string });
    } catch (error) {
      replace(detail, h('p', { class: 'error' }, (error as Error).message));
    }
  }

  function showTrace(id: string, trace: { task: string; model: string; file: string; events: TraceEvent[] }): void {
    const finish = trace.events.find((event) => event.type === 'task-finish') as (TraceEvent & { success: boolean; summary: string; usage: Record<string, unknown> }) | undefined;
    const start = trace.events.find((event) => event.type === 'task-start') as (TraceEvent & { budget: unknown }) | undefined;
    replace(
      detail,
      h('h3', {}, `Task ${id}`),
      h('p', {}, h('strong', {}, 'Task: '), trace.task),
      h('p', { class: 'muted' }, `Model ${trace.model} · trace ${trace.file}`),
      h('div', { class: 'row' }, replayButton(id), h('span', { class: 'muted' }, 'or ', h('code', {}, `agent-spaces task --replay ${trace.file}`))),
      finish ? h('p', { class: finish.success ? 'ok' : 'error' }, finish.success ? 'Finished: ' : 'Failed: ', finish.summary) : h('p', { class: 'warn' }, 'No task-finish event: the task did not finish.'),
      h('h4', {}, 'Budget and usage'),
      jsonBlock({ budget: start?.budget, usage: finish?.usage }, 'Budget and usage'),
      h('h4', {}, `Steps (${trace.events.length} events)`),
      h(
        'table',
        { 'aria-label': 'Trace events' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Step'), h('th', {}, 'Event'), h('th', {}, 'Details'))),
        h('tbody', {}, ...trace.events.map((event) => h('tr', { 'data-event': event.type }, h('td', {}, event.step), h('td', {}, event.type), h('td', {}, describe(event))))),
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
        const replay = await api<{ id: string; success: boolean; summary: string }>('POST', `/api/runs/${encodeURIComponent(id)}/replay`, {});
        replace(outcome, replay.success ? 'Replayed: ' : 'The replay failed: ', replay.summary, ' (', h('a', { href: `#/runs/${encodeURIComponent(replay.id)}` }, 'open the replay'), ')');
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
      h('h3', {}, `Code run ${run.runId}`),
      h('p', { class: 'muted' }, `${new Date(run.startedAt).toLocaleString()} · ${run.file}`),
      h('pre', { 'aria-label': 'Program', tabindex: 0 }, run.code),
      h('h4', {}, run.result.success ? 'Result' : 'Error'),
      jsonBlock(run.result.success ? run.result.result : run.result.error, 'Outcome'),
      h('h4', {}, 'Logs'),
      h('pre', { tabindex: 0 }, run.result.logs.map((log) => log.message).join('\n') || '(none)'),
      h('h4', {}, 'Calls'),
      renderTimeline(run.calls),
    );
  }
}

/** One line of a trace event; model replies and tool calls in full, in a disclosure. */
function describe(event: TraceEvent): HTMLElement | string {
  const { type: _type, step: _step, timestamp: _timestamp, taskId: _taskId, ...rest } = event;
  switch (event.type) {
    case 'model-reply':
      return h('details', {}, h('summary', {}, `cost $${Number(event.costUsd ?? 0).toFixed(4)}`), jsonBlock(event.reply, 'Model reply'));
    case 'tool-call':
      return `${String(event.name)} ${event.ok ? 'ok' : 'failed'} in ${Number(event.durationMs).toFixed(1)} ms${event.error ? `: ${JSON.stringify(event.error)}` : ''}`;
    case 'code-run':
      return `${event.ok ? 'ok' : 'failed'}, ${String(event.calls)} calls, ${Number(event.durationMs).toFixed(1)} ms${event.error ? `: ${JSON.stringify(event.error)}` : ''}`;
    default:
      return h('details', {}, h('summary', {}, JSON.stringify(rest).slice(0, 120)), jsonBlock(rest));
  }
}

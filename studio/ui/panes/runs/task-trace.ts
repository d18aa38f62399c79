import { api } from '../../api.js';
import { h, jsonBlock, replace } from '../../dom.js';
import type { ReplayView, TaskTraceView, TraceEventView } from '../../types.js';

/** A planner task's trace in `detail`: the task, Replay, how it finished, budget and usage, and every event. */
export function showTrace(detail: HTMLElement, trace: TaskTraceView): void {
  const { id } = trace;
  const finish = trace.events.find((event) => event.type === 'task-finish') as
    (TraceEventView & { success: boolean; summary: string; usage: Record<string, unknown> }) | undefined;
  const start = trace.events.find((event) => event.type === 'task-start') as (TraceEventView & { budget: unknown }) | undefined;
  replace(
    detail,
    h('h3', {}, `Task ${id}`),
    h('p', {}, h('strong', {}, 'Task: '), trace.task),
    h('p', { class: 'muted' }, `Model ${trace.model} · trace ${trace.file}`),
    h(
      'div',
      { class: 'row' },
      replayButton(id),
      h('span', { class: 'muted' }, 'or ', h('code', {}, `agent-spaces task --replay ${trace.file}`)),
    ),
    finish
      ? h('p', { class: finish.success ? 'ok' : 'error' }, finish.success ? 'Finished: ' : 'Failed: ', finish.summary)
      : h('p', { class: 'warn' }, 'No task-finish event: the task did not finish.'),
    h('h4', {}, 'Budget and usage'),
    jsonBlock({ budget: start?.budget, usage: finish?.usage }, 'Budget and usage'),
    h('h4', {}, `Steps (${trace.events.length} events)`),
    h(
      'table',
      { 'aria-label': 'Trace events' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Step'), h('th', {}, 'Event'), h('th', {}, 'Details'))),
      h(
        'tbody',
        {},
        ...trace.events.map((event) =>
          h('tr', { 'data-event': event.type }, h('td', {}, event.step), h('td', {}, event.type), h('td', {}, describe(event))),
        ),
      ),
    ),
  );
}

/** Replay: the recorded model replies run again against the tools, as a new run with a link to it. */
function replayButton(id: string): HTMLElement {
  const button = h('button', { type: 'button' }, 'Replay');
  const outcome = h('span', { role: 'status' });
  button.addEventListener('click', async () => {
    button.disabled = true;
    outcome.textContent = 'Replaying the recorded model replies against the tools…';
    try {
      const replay = await api<ReplayView>('POST', `/api/runs/${encodeURIComponent(id)}/replay`, {});
      replace(
        outcome,
        replay.success ? 'Replayed: ' : 'The replay failed: ',
        replay.summary,
        ' (',
        h('a', { href: `#/runs/${encodeURIComponent(replay.id)}` }, 'open the replay'),
        ')',
      );
    } catch (error) {
      outcome.textContent = (error as Error).message;
    } finally {
      button.disabled = false;
    }
  });
  return h('span', {}, button, ' ', outcome);
}

/** A recorded error (`{ code, message }` or a string) in words. */
function errorWords(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof message === 'string') return `${typeof code === 'string' ? `${code}: ` : ''}${message}`;
  }
  return JSON.stringify(error);
}

/** One line of a trace event; model replies and tool calls in full, in a disclosure. */
function describe(event: TraceEventView): HTMLElement | string {
  const { type: _type, step: _step, timestamp: _timestamp, taskId: _taskId, ...rest } = event;
  switch (event.type) {
    case 'model-reply':
      return h('details', {}, h('summary', {}, `cost $${Number(event.costUsd ?? 0).toFixed(4)}`), jsonBlock(event.reply, 'Model reply'));
    case 'tool-call':
      return `${String(event.name)} ${event.ok ? 'ok' : 'failed'} in ${Number(event.durationMs).toFixed(1)} ms${event.error ? `: ${errorWords(event.error)}` : ''}`;
    case 'code-run':
      return `${event.ok ? 'ok' : 'failed'}, ${String(event.calls)} calls, ${Number(event.durationMs).toFixed(1)} ms${event.error ? `: ${errorWords(event.error)}` : ''}`;
    default:
      return h('details', {}, h('summary', {}, JSON.stringify(rest).slice(0, 120)), jsonBlock(rest));
  }
}

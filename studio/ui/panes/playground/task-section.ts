import { api, onEvent } from '../../api.js';
import { h, jsonBlock, labelled, replace } from '../../dom.js';
import type { TaskRunView } from '../../types.js';

/**
 * A planner task in words, run as `agent-spaces task` runs it (by a worker of the store, when the
 * studio has one): its steps as they happen, then its summary and result.
 */
export function taskSection(): { element: HTMLElement; stop(): void } {
  const input = h('input', { type: 'text', class: 'wide', placeholder: "Say in words what to do with this space's capabilities" });
  const start = h('button', { type: 'button' }, 'Start task');
  const status = h('p', { class: 'muted', role: 'status' });
  const steps = h('ol', { 'aria-label': 'Task steps' });
  const outcome = h('div', { 'aria-live': 'polite' });
  let taskId: string | undefined;
  let running = false;
  const ours = (event: Record<string, unknown>): boolean => {
    if (!running || typeof event.runId !== 'string' || !event.runId.startsWith('task-')) return false;
    taskId ??= event.runId;
    return event.runId === taskId;
  };
  start.addEventListener('click', async () => {
    if (running || input.value.trim() === '') return;
    running = true;
    start.disabled = true;
    taskId = undefined;
    replace(steps);
    replace(outcome);
    status.textContent = 'Running the task…';
    try {
      const task = await api<TaskRunView>('POST', '/api/task', { task: input.value });
      status.textContent = `${task.success ? 'Finished' : 'Failed'} in ${task.steps} step${task.steps === 1 ? '' : 's'} · ${task.taskId}${task.worker ? ` · worker ${task.worker.executorId}${task.worker.attempts > 1 ? ` (attempt ${task.worker.attempts})` : ''}` : ''}`;
      replace(
        outcome,
        h('p', { class: task.success ? 'ok' : 'error' }, task.summary),
        task.error ? h('p', { class: 'error' }, task.error) : null,
        task.result === undefined ? null : jsonBlock(task.result, 'Task result'),
      );
    } catch (error) {
      status.textContent = '';
      replace(outcome, h('p', { class: 'error', role: 'alert' }, (error as Error).message));
    } finally {
      running = false;
      start.disabled = false;
    }
  });
  const stops = [
    onEvent('task-event', (event) => {
      if (!ours(event)) return;
      const step = event.event as { type?: string; step?: number } | undefined;
      steps.append(h('li', {}, `${step?.type ?? 'event'}${step?.step === undefined ? '' : ` (step ${step.step})`}`));
    }),
    onEvent('run-waiting-for-worker', (event) => {
      if (ours(event))
        status.textContent = `Queued in the store ${String(event.store)}, but no worker is running: start one with "agent-spaces worker".`;
    }),
    onEvent('run-started', (event) => {
      if (ours(event))
        status.textContent = `Running on worker ${String(event.executorId)}${Number(event.attempt) > 1 ? ` (taken over, attempt ${Number(event.attempt)})` : ''}…`;
    }),
  ];
  const element = h(
    'section',
    { class: 'panel', 'aria-label': 'Task' },
    h('h3', {}, 'Task'),
    h('div', { class: 'row' }, labelled('Task in words', input), start),
    status,
    steps,
    outcome,
  );
  return { element, stop: () => stops.forEach((stop) => stop()) };
}

import type { EditorView } from '@codemirror/view';
import { api, onEvent } from '../api.js';
import { createCodeEditor, rangeAt } from '../code-editor.js';
import { h, jsonBlock, labelled, replace } from '../dom.js';
import { renderTimeline } from '../timeline.js';
import type { CodeRunView, Diagnostic, TaskRunView, TimelineCall } from '../types.js';

const STORAGE_KEY = 'agent-spaces-studio-program';

const EXAMPLE = `// Type-checked against @capabilities/* as you type; Run executes it in the sandbox.
import { trainSchedule } from '@capabilities/train-schedule';
import { getWeather } from '@capabilities/get-weather';

const trips = await trainSchedule.getSchedule({ station: 'Central' });
const morning = trips.filter((trip) => trip.hour < 12);
// Parallel calls show side by side in the timeline.
const weather = await Promise.all(['Harbor', 'Airport', 'Northgate'].map((location) => getWeather({ location })));
console.log(\`\${morning.length} of \${trips.length} trips leave in the morning\`);
export default weather.map((report) => \`\${report.location}: \${report.temperature}°C\`);
`;

/** A TypeScript editor with the sandbox's type-checker, Run, and the run's result, logs and calls. */
export function playgroundPane(root: HTMLElement): () => void {
  const editorHost = h('div', { class: 'editor' });
  const problems = h('ul', { class: 'issues', 'aria-label': 'Type errors', 'aria-live': 'polite' });
  const run = h('button', { class: 'primary', type: 'button', 'aria-keyshortcuts': 'Control+Enter' }, 'Run');
  const status = h('span', { class: 'muted', role: 'status' });
  const output = h('section', { class: 'panel', 'aria-label': 'Run output' }, h('p', { class: 'muted' }, 'Run the program to see its result, logs and calls (Ctrl+Enter).'));
  const live: TimelineCall[] = [];
  const liveLogs: string[] = [];
  let runId: string | undefined;
  let running = false;

  const taskPanel = taskSection();
  const where = h('p', { class: 'muted', hidden: true, 'aria-label': 'Where runs go' });
  replace(
    root,
    h('h2', {}, 'Playground'),
    where,
    h('div', { class: 'split' }, h('section', { class: 'panel', 'aria-label': 'Program' }, h('div', { class: 'row' }, run, status), editorHost, h('h3', {}, 'Type errors'), problems), output),
    taskPanel.element,
  );

  // With a store, runs go to its workers: say so before the first run, with how many are alive.
  void api<{ store?: { url: string; workers?: string[]; problem?: string } }>('GET', '/api/space').then(({ store }) => {
    if (!store) return;
    const alive = store.workers?.length ?? 0;
    where.hidden = false;
    where.textContent = store.problem
      ? `Runs and tasks go to the store ${store.url}, which cannot be read now: ${store.problem}`
      : `Runs and tasks go to the store ${store.url} and its workers (${alive === 0 ? 'none is running now: start one with "agent-spaces worker"' : `${alive} alive now`}).`;
  });

  const editor: EditorView = createCodeEditor(editorHost, {
    doc: localStorage.getItem(STORAGE_KEY) ?? EXAMPLE,
    label: 'Program (TypeScript)',
    typescript: true,
    onChange: (text) => localStorage.setItem(STORAGE_KEY, text),
    lint: async (text) => {
      const { diagnostics } = await api<{ diagnostics: Diagnostic[] }>('POST', '/api/check', { code: text });
      showProblems(diagnostics);
      return diagnostics.map((diagnostic) => ({ ...rangeAt(editor.state, diagnostic.line, diagnostic.column), severity: 'error' as const, message: `TS${diagnostic.code}: ${diagnostic.message}`, source: 'TypeScript' }));
    },
  });

  function showProblems(diagnostics: Diagnostic[]): void {
    problems.dataset.count = String(diagnostics.length);
    replace(problems, ...(diagnostics.length ? diagnostics.map((diagnostic) => h('li', { class: 'error' }, h('button', { type: 'button', class: 'link', onclick: () => goTo(diagnostic.line, diagnostic.column) }, `line ${diagnostic.line}:${diagnostic.column}`), ` TS${diagnostic.code}: ${diagnostic.message}`)) : [h('li', { class: 'ok' }, 'No type errors.')]));
  }

  function goTo(line: number, column: number): void {
    const { from } = rangeAt(editor.state, line, column);
    editor.dispatch({ selection: { anchor: from }, scrollIntoView: true });
    editor.focus();
  }

  async function execute(): Promise<void> {
    if (running) return;
    running = true;
    run.disabled = true;
    status.textContent = 'Running… (a call that needs approval waits in the Approvals pane)';
    live.length = 0;
    liveLogs.length = 0;
    runId = undefined;
    replace(
      output,
      h('p', { id: 'run-notice', role: 'alert', class: 'warn', hidden: true }),
      h('p', { id: 'run-worker', class: 'muted', hidden: true }),
      h('h3', {}, 'Calls'),
      h('div', { id: 'live-timeline' }, renderTimeline(live)),
      h('h3', {}, 'Logs so far'),
      h('pre', { id: 'live-logs', 'aria-label': 'Logs so far', tabindex: 0 }),
    );
    try {
      const record = await api<CodeRunView>('POST', '/api/run', { code: editor.state.doc.toString() });
      showRun(record);
      status.textContent = record.result.success ? `Done in ${Math.round(record.result.durationMs)} ms` : 'Failed';
    } catch (error) {
      replace(output, h('p', { class: 'error' }, (error as Error).message));
      status.textContent = '';
    } finally {
      running = false;
      run.disabled = false;
    }
  }

  function showRun(record: CodeRunView): void {
    const { result } = record;
    const error = result.error;
    replace(
      output,
      h('h3', {}, result.success ? h('span', { class: 'ok' }, 'Result') : h('span', { class: 'error' }, 'Error')),
      result.success
        ? jsonBlock(result.result, 'Result')
        : h(
            'div',
            { class: 'error', 'aria-label': 'Run error' },
            h('p', {}, error?.line ? h('button', { type: 'button', onclick: () => goTo(error.line ?? 1, error.column ?? 1) }, `line ${error.line}${error.column ? `:${error.column}` : ''}`) : null, ` ${error?.name ?? 'Error'} [${error?.code ?? ''}]: ${error?.message ?? ''}`),
            ...(error?.diagnostics ?? []).map((diagnostic) => h('p', {}, `line ${diagnostic.line}:${diagnostic.column} TS${diagnostic.code}: ${diagnostic.message}`)),
          ),
      h('p', { class: 'muted' }, `${result.calls} call${result.calls === 1 ? '' : 's'}, ${Math.round(result.durationMs)} ms${result.timedOut ? ', timed out' : ''} · run ${record.runId} (`, h('a', { href: `#/runs/${record.runId}` }, 'open in Runs'), ')'),
      record.worker ? h('p', { class: 'muted', 'aria-label': 'Worker' }, `Ran in the store on worker ${record.worker.executorId}${record.worker.attempts > 1 ? ` (attempt ${record.worker.attempts}: taken over from a worker that died)` : ''}.`) : null,
      h('h3', {}, `Logs (${result.logs.length})`),
      result.logs.length ? h('pre', { 'aria-label': 'Logs', tabindex: 0 }, result.logs.map((log) => `${log.level === 'log' ? '' : `[${log.level}] `}${log.message}`).join('\n')) : h('p', { class: 'muted' }, 'No logs.'),
      h('h3', {}, 'Calls'),
      record.worker ? h('p', { class: 'muted' }, 'A worker made the calls: their timeline stays with it (the store keeps their journal).') : renderTimeline(record.calls),
    );
  }

  run.addEventListener('click', () => void execute());
  editorHost.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void execute();
    }
  });

  /** The run this page started: the first run id of the studio's own runs while it is going. */
  const ours = (event: Record<string, unknown>): boolean => {
    if (!running || typeof event.runId !== 'string' || !event.runId.startsWith('studio-') || event.runId.startsWith('studio-call-')) return false;
    runId ??= event.runId;
    return event.runId === runId;
  };
  const show = (id: string, text: string | undefined): void => {
    const element = output.querySelector<HTMLElement>(`#${id}`);
    if (!element) return;
    element.hidden = text === undefined;
    element.textContent = text ?? '';
  };
  // While a run is going, its calls appear as they start and end.
  const stops = [
    onEvent('tool-call-start', (event) => {
      if (!ours(event)) return;
      live.push({ callId: String(event.callId), capability: String(event.capability), function: String(event.function), args: String(event.args), startedAt: Date.parse(String(event.timestamp)) });
      redrawLive();
    }),
    onEvent('tool-call-end', (event) => {
      const call = live.find((entry) => entry.callId === event.callId);
      if (!call) return;
      Object.assign(call, { durationMs: Number(event.durationMs), ok: Boolean(event.ok), ...(event.error ? { error: event.error } : {}) });
      redrawLive();
    }),
  ];
  // With a store, a worker runs the program: the page says when none is alive, and who took it.
  stops.push(
    onEvent('run-waiting-for-worker', (event) => {
      if (!ours(event)) return;
      show('run-notice', `Queued in the store ${String(event.store)}, but no worker is running: start one with "agent-spaces worker". The run starts as soon as a worker is up, and stays queued in the store if you leave.`);
      status.textContent = 'Waiting for a worker…';
    }),
    onEvent('run-started', (event) => {
      if (!ours(event)) return;
      show('run-notice', undefined);
      const attempt = Number(event.attempt);
      show('run-worker', attempt > 1 ? `Taken over by worker ${String(event.executorId)} (attempt ${attempt}; ${Number(event.replayedCalls)} finished calls answered from the journal)` : `Running on worker ${String(event.executorId)}`);
      status.textContent = 'Running… (a call that needs approval waits in the Approvals pane)';
    }),
    onEvent('run-log', (event) => {
      if (!ours(event)) return;
      liveLogs.push(`${event.level === 'log' ? '' : `[${String(event.level)}] `}${String(event.message)}`);
      const logs = output.querySelector('#live-logs');
      if (logs) logs.textContent = liveLogs.join('\n');
    }),
  );
  function redrawLive(): void {
    const host = output.querySelector('#live-timeline');
    if (host) replace(host, renderTimeline(live));
  }
  return () => {
    stops.forEach((stop) => stop());
    taskPanel.stop();
    editor.destroy();
  };
}


/**
 * A planner task in words, run as `agent-spaces task` runs it (by a worker of the store, when the
 * studio has one): its steps as they happen, then its summary and result.
 */
function taskSection(): { element: HTMLElement; stop(): void } {
  const input = h('input', { type: 'text', placeholder: 'e.g. Which trains leave Central before noon?' });
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
      replace(outcome, h('p', { class: task.success ? 'ok' : 'error' }, task.summary), task.error ? h('p', { class: 'error' }, task.error) : null, task.result === undefined ? null : jsonBlock(task.result, 'Task result'));
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
      if (ours(event)) status.textContent = `Queued in the store ${String(event.store)}, but no worker is running: start one with "agent-spaces worker".`;
    }),
    onEvent('run-started', (event) => {
      if (ours(event)) status.textContent = `Running on worker ${String(event.executorId)}${Number(event.attempt) > 1 ? ` (taken over, attempt ${Number(event.attempt)})` : ''}…`;
    }),
  ];
  const element = h('section', { class: 'panel', 'aria-label': 'Task' }, h('h3', {}, 'Task'), h('div', { class: 'row' }, labelled('Task in words', input), start), status, steps, outcome);
  return { element, stop: () => stops.forEach((stop) => stop()) };
}

import { placeholder } from '@codemirror/view';
import type { EditorView } from '@codemirror/view';
import { api, ApiError, onEvent } from '../api.js';
import { createCodeEditor, rangeAt } from '../code-editor.js';
import { h, jsonBlock, labelled, replace } from '../dom.js';
import { diagnosticText } from '../diagnostic-text.js';
import { errorView } from '../error-view.js';
import { renderTimeline } from '../timeline.js';
import type { CheckView, CodeRunView, Diagnostic, SpaceView, StarterProgram, TaskRunView, TimelineCall } from '../types.js';

/** The program kept per space (one browser may open the studios of several spaces on one address). */
const programKey = (root: string): string => `agent-spaces-studio-program:${root}`;
/** The last run of this tab, shown again when the pane is opened again (after a reload too). */
const LAST_RUN_KEY = 'agent-spaces-studio-last-run';

/**
 * The playground's run outlives the pane: a person who leaves it to approve a call in the Approvals
 * pane finds the run going on, or its result, when they come back.
 */
const session: {
  running: boolean;
  runId?: string;
  live: TimelineCall[];
  liveLogs: string[];
  notice?: string;
  worker?: string;
  last?: CodeRunView;
  /** Why the studio could not run the program (its API refused or could not be reached). */
  failure?: { code: string; message: string };
  /** The open pane's hooks (none while another pane is open). */
  view?: { redraw(): void; finished(): void };
} = { running: false, live: [], liveLogs: [] };

let following = false;
/** Follows the playground's run as its events arrive, whichever pane is open. */
function followRuns(): void {
  if (following) return;
  following = true;
  const ours = (event: Record<string, unknown>): boolean => {
    if (!session.running || typeof event.runId !== 'string' || !event.runId.startsWith('studio-') || event.runId.startsWith('studio-call-'))
      return false;
    session.runId ??= event.runId;
    return event.runId === session.runId;
  };
  const changed = (): void => session.view?.redraw();
  onEvent('tool-call-start', (event) => {
    if (!ours(event)) return;
    session.live.push({
      callId: String(event.callId),
      capability: String(event.capability),
      function: String(event.function),
      args: String(event.args),
      startedAt: Date.parse(String(event.timestamp)),
    });
    changed();
  });
  onEvent('tool-call-end', (event) => {
    const call = session.live.find((entry) => entry.callId === event.callId);
    if (!call) return;
    Object.assign(call, { durationMs: Number(event.durationMs), ok: Boolean(event.ok), ...(event.error ? { error: event.error } : {}) });
    changed();
  });
  // With a store, a worker runs the program: the page says when none is alive, and who took it.
  onEvent('run-waiting-for-worker', (event) => {
    if (!ours(event)) return;
    session.notice = `Queued in the store ${String(event.store)}, but no worker is running: start one with "agent-spaces worker". The run starts as soon as a worker is up, and stays queued in the store if you leave.`;
    changed();
  });
  onEvent('run-started', (event) => {
    if (!ours(event)) return;
    session.notice = undefined;
    const attempt = Number(event.attempt);
    session.worker =
      attempt > 1
        ? `Taken over by worker ${String(event.executorId)} (attempt ${attempt}; ${Number(event.replayedCalls)} finished calls answered from the journal)`
        : `Running on worker ${String(event.executorId)}`;
    changed();
  });
  onEvent('run-log', (event) => {
    if (!ours(event)) return;
    session.liveLogs.push(`${event.level === 'log' ? '' : `[${String(event.level)}] `}${String(event.message)}`);
    changed();
  });
}

/** Starts a run; its outcome lands in the session, for whichever playground pane is open then. */
async function startRun(code: string, name: string): Promise<void> {
  Object.assign(session, {
    running: true,
    runId: undefined,
    live: [],
    liveLogs: [],
    notice: undefined,
    worker: undefined,
    last: undefined,
    failure: undefined,
  });
  session.view?.redraw();
  try {
    session.last = await api<CodeRunView>('POST', '/api/run', { code, ...(name.trim() ? { name: name.trim() } : {}) });
    if (!session.last.worker) sessionStorage.setItem(LAST_RUN_KEY, session.last.runId);
  } catch (error) {
    session.failure = { code: error instanceof ApiError ? error.code : 'STUDIO_UNREACHABLE', message: (error as Error).message };
  } finally {
    session.running = false;
    session.view?.finished();
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

/** A TypeScript editor with the sandbox's type-checker, Run, and the run's result, logs and calls. */
export function playgroundPane(root: HTMLElement): () => void {
  followRuns();
  const editorHost = h('div', { class: 'editor' }, h('p', { class: 'muted' }, "Loading this space's program…"));
  const problems = h('ul', { class: 'issues', 'aria-label': 'Type errors', 'aria-live': 'polite' });
  const run = h('button', { class: 'primary', type: 'button', 'aria-keyshortcuts': 'Control+Enter' }, 'Run');
  const runName = h('input', {
    type: 'text',
    'aria-label': 'Run name',
    placeholder: 'Run name (optional)',
    title: 'How the Runs pane lists this run (else by its first capability call)',
    maxlength: 200,
  });
  const starterButton = h(
    'button',
    { type: 'button', hidden: true, title: "Replace the program with the starter program made from this space's capabilities" },
    'Starter program',
  );
  const status = h('span', { class: 'muted', role: 'status' });
  const hint = h('p', { class: 'muted', 'aria-label': 'Hint', hidden: true });
  const output = h(
    'section',
    { class: 'panel', 'aria-label': 'Run output' },
    h('p', { class: 'muted' }, 'Run the program to see its result, logs and calls (Ctrl+Enter).'),
  );
  let editor: EditorView | undefined;
  let starter: StarterProgram | undefined;
  let closed = false;

  const taskPanel = taskSection();
  const where = h('p', { class: 'muted', hidden: true, 'aria-label': 'Where runs go' });
  replace(
    root,
    h('h2', {}, 'Playground'),
    where,
    h(
      'div',
      { class: 'split' },
      h(
        'section',
        { class: 'panel', 'aria-label': 'Program' },
        h('div', { class: 'row' }, run, runName, starterButton, status),
        hint,
        editorHost,
        h('h3', {}, 'Type errors'),
        problems,
      ),
      output,
    ),
    taskPanel.element,
  );

  void open().catch((error: Error) => replace(editorHost, h('p', { class: 'error', role: 'alert' }, error.message)));

  /** The space's own program (kept in this browser), else the starter made from its capabilities. */
  async function open(): Promise<void> {
    const space = await api<SpaceView>('GET', '/api/space');
    // With a store, runs go to its workers: say so before the first run, with how many are alive.
    if (space.store) {
      const alive = space.store.workers?.length ?? 0;
      where.hidden = false;
      where.textContent = space.store.problem
        ? `Runs and tasks go to the store ${space.store.url}, which cannot be read now: ${space.store.problem}`
        : `Runs and tasks go to the store ${space.store.url} and its workers (${alive === 0 ? 'none is running now: start one with "agent-spaces worker"' : `${alive} alive now`}).`;
    }
    const key = programKey(space.root);
    const saved = localStorage.getItem(key);
    starter = await api<StarterProgram>('GET', '/api/starter');
    if (closed) return;
    if (saved === null) showHint(starter.hint);
    starterButton.hidden = starter.code === '';
    editorHost.replaceChildren();
    editor = createCodeEditor(editorHost, {
      doc: saved ?? starter.code,
      label: 'Program (TypeScript)',
      typescript: true,
      extensions: [placeholder(starter.code === '' ? starter.hint : "import { … } from '@capabilities/…';")],
      onChange: (text) => {
        localStorage.setItem(key, text);
        // The starter's hint is about the starter: once the program is the user's own, it goes.
        if (starter?.code && text !== starter.code) showHint('');
      },
      lint: async (text) => {
        const { diagnostics } = await api<CheckView>('POST', '/api/check', { code: text });
        showProblems(diagnostics);
        return diagnostics.map((diagnostic) => ({
          ...(editor ? rangeAt(editor.state, diagnostic.line, diagnostic.column) : { from: 0, to: 0 }),
          severity: 'error' as const,
          message: diagnosticText(diagnostic),
          source: 'TypeScript',
        }));
      },
    });
  }

  function showHint(text: string): void {
    hint.hidden = text === '';
    hint.textContent = text;
  }

  starterButton.addEventListener('click', () => {
    if (!editor || !starter) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: starter.code } });
    showHint(starter.hint);
  });

  function showProblems(diagnostics: Diagnostic[]): void {
    problems.dataset.count = String(diagnostics.length);
    replace(
      problems,
      ...(diagnostics.length
        ? diagnostics.map((diagnostic) =>
            h(
              'li',
              { class: 'error' },
              h(
                'button',
                { type: 'button', class: 'link', onclick: () => goTo(diagnostic.line, diagnostic.column) },
                `line ${diagnostic.line}:${diagnostic.column}`,
              ),
              ` ${diagnosticText(diagnostic)}`,
            ),
          )
        : [h('li', { class: 'ok' }, 'No type errors.')]),
    );
  }

  function goTo(line: number, column: number): void {
    if (!editor) return;
    const { from } = rangeAt(editor.state, line, column);
    editor.dispatch({ selection: { anchor: from }, scrollIntoView: true });
    editor.focus();
  }

  function execute(): void {
    if (session.running || !editor) return;
    void startRun(editor.state.doc.toString(), runName.value);
  }

  /** What the session holds now: the run going on, its result, or the last run of this tab. */
  function draw(): void {
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

  run.addEventListener('click', execute);
  editorHost.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      execute();
    }
  });

  session.view = { redraw: draw, finished: draw };
  if (session.running || session.last || session.failure !== undefined) draw();
  else {
    // After a reload: the tab's last run, read back from the run folder.
    const last = sessionStorage.getItem(LAST_RUN_KEY);
    if (last) {
      void api<CodeRunView & { kind: string }>('GET', `/api/runs/${encodeURIComponent(last)}`).then(
        (record) => {
          if (record.kind !== 'code-run' || session.running || session.last) return;
          session.last = record;
          draw();
        },
        () => sessionStorage.removeItem(LAST_RUN_KEY),
      );
    }
  }
  return () => {
    closed = true;
    session.view = undefined;
    taskPanel.stop();
    editor?.destroy();
  };
}

/**
 * A planner task in words, run as `agent-spaces task` runs it (by a worker of the store, when the
 * studio has one): its steps as they happen, then its summary and result.
 */
function taskSection(): { element: HTMLElement; stop(): void } {
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

import { api } from '../api.js';
import { h, replace } from '../dom.js';
import type { SpaceView } from '../types.js';
import { ProgramEditor } from './playground/program-editor.js';
import { drawSession } from './playground/run-output.js';
import { followRuns, restoreLastRun, session, startRun } from './playground/run-session.js';
import { taskSection } from './playground/task-section.js';

/** A TypeScript editor with the sandbox's type-checker, Run, and the run's result, logs and calls. */
export function playgroundPane(root: HTMLElement): () => void {
  followRuns();
  const program = new ProgramEditor();
  const run = h('button', { class: 'primary', type: 'button', 'aria-keyshortcuts': 'Control+Enter' }, 'Run');
  const runName = h('input', {
    type: 'text',
    'aria-label': 'Run name',
    placeholder: 'Run name (optional)',
    title: 'How the Runs pane lists this run (else by its first capability call)',
    maxlength: 200,
  });
  const status = h('span', { class: 'muted', role: 'status' });
  const output = h(
    'section',
    { class: 'panel', 'aria-label': 'Run output' },
    h('p', { class: 'muted' }, 'Run the program to see its result, logs and calls (Ctrl+Enter).'),
  );
  const where = h('p', { class: 'muted', hidden: true, 'aria-label': 'Where runs go' });
  const taskPanel = taskSection();
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
        h('div', { class: 'row' }, run, runName, program.starterButton, status),
        program.hint,
        program.host,
        h('h3', {}, 'Type errors'),
        program.problems,
      ),
      output,
    ),
    taskPanel.element,
  );

  void openProgram(program, where).catch((error: Error) => replace(program.host, h('p', { class: 'error', role: 'alert' }, error.message)));

  const execute = (): void => {
    const code = program.text();
    if (session.running || code === undefined) return;
    void startRun(code, runName.value);
  };
  run.addEventListener('click', execute);
  program.host.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      execute();
    }
  });

  const draw = (): void => drawSession({ run, status, output }, (line, column) => program.goTo(line, column));
  session.view = { redraw: draw, finished: draw };
  if (session.running || session.last || session.failure !== undefined) draw();
  else restoreLastRun(draw);
  return () => {
    session.view = undefined;
    taskPanel.stop();
    program.close();
  };
}

/** The space's own program, and, with a store, where runs go: say so before the first run, with how many workers are alive. */
async function openProgram(program: ProgramEditor, where: HTMLElement): Promise<void> {
  const space = await api<SpaceView>('GET', '/api/space');
  if (space.store) {
    const alive = space.store.workers?.length ?? 0;
    where.hidden = false;
    where.textContent = space.store.problem
      ? `Runs and tasks go to the store ${space.store.url}, which cannot be read now: ${space.store.problem}`
      : `Runs and tasks go to the store ${space.store.url} and its workers (${alive === 0 ? 'none is running now: start one with "agent-spaces worker"' : `${alive} alive now`}).`;
  }
  await program.open(space.root);
}

import { api, ApiError, currentSpace, onEvent, pickSpace, setToken, takeToken } from './api.js';
import { h, replace, toast } from './dom.js';
import { agentsPane } from './panes/agents.js';
import { approvalsPane } from './panes/approvals.js';
import { capabilitiesPane } from './panes/capabilities.js';
import { evalPane } from './panes/eval.js';
import { playgroundPane } from './panes/playground.js';
import { runsPane } from './panes/runs.js';
import { testerPane } from './panes/tester.js';
import type { ApprovalListView, SpaceView } from './types.js';

/** A pane renders into its element; it may return a function that stops its subscriptions. */
export type Pane = (root: HTMLElement, route: string[]) => void | (() => void);

const PANES: { id: string; title: string; render: Pane }[] = [
  { id: 'capabilities', title: 'Capabilities', render: capabilitiesPane },
  { id: 'playground', title: 'Playground', render: playgroundPane },
  { id: 'tester', title: 'Function tester', render: testerPane },
  { id: 'agents', title: 'Agents', render: agentsPane },
  { id: 'runs', title: 'Runs', render: runsPane },
  { id: 'eval', title: 'Eval', render: evalPane },
  { id: 'approvals', title: 'Approvals', render: approvalsPane },
];

const main = document.getElementById('main') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
let stop: void | (() => void);

function route(): void {
  const [id = 'capabilities', ...rest] = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const pane = PANES.find((candidate) => candidate.id === id) ?? PANES[0];
  if (!pane) return;
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.pane === pane.id) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (typeof stop === 'function') stop();
  main.replaceChildren();
  main.dataset.pane = pane.id;
  document.title = `${pane.title} · Agent Spaces Studio`;
  stop = pane.render(main, rest);
}

function start(): void {
  setToken(takeToken());
  replace(
    nav,
    ...PANES.map((pane) =>
      h(
        'a',
        { href: `#/${pane.id}`, 'data-pane': pane.id },
        pane.title,
        pane.id === 'approvals' ? h('span', { class: 'badge', id: 'approvals-count', hidden: true }, '0') : null,
      ),
    ),
  );
  window.addEventListener('hashchange', route);
  route();
  void spacePicker();
  void api<SpaceView>('GET', '/api/space').then(
    (space) =>
      (document.getElementById('space-root') as HTMLElement).append(
        space.root,
        space.store ? ` · store ${space.store.url} (${space.store.problem ?? `${space.store.workers?.length ?? 0} worker(s) alive`})` : '',
      ),
    (error: Error) => toast(error.message),
  );
  // The badge counts calls waiting anywhere, whatever pane is open.
  const refreshCount = () =>
    void api<ApprovalListView>('GET', '/api/approvals').then(({ approvals }) => {
      const badge = document.getElementById('approvals-count') as HTMLElement;
      badge.textContent = String(approvals.length);
      badge.hidden = approvals.length === 0;
      badge.setAttribute('aria-label', `${approvals.length} waiting`);
    });
  onEvent('approval-required', refreshCount);
  onEvent('approval-decided', refreshCount);
  refreshCount();
}

/** A studio over several spaces: a picker in the header (the tab's choice is kept; a space gone falls back to the first). */
async function spacePicker(): Promise<void> {
  const listed = await api<{ spaces: string[]; current: string }>('GET', '/api/spaces').catch((error: unknown) => {
    // A space this tab picked is gone (the studio restarted with others): back to the default one.
    if (error instanceof ApiError && error.status === 404 && currentSpace()) pickSpace('');
    return undefined;
  });
  if (!listed || listed.spaces.length < 2) return;
  const select = h(
    'select',
    { id: 'space-picker', 'aria-label': 'Space' },
    ...listed.spaces.map((name) => h('option', { value: name, ...(name === listed.current ? { selected: true } : {}) }, name)),
  );
  select.addEventListener('change', () => pickSpace(select.value));
  (document.getElementById('space-root') as HTMLElement).before(select);
}

start();

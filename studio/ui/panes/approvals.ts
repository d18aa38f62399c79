import { api, onEvent } from '../api.js';
import { h, jsonBlock, labelled, replace, toast } from '../dom.js';
import type { ApprovalListView, ApprovalOrigin, PendingApprovalView } from '../types.js';

/** A call decided in this tab. */
interface Decided {
  approval: PendingApprovalView;
  approved: boolean;
  at: Date;
}

/** The calls decided in this tab, newest first (kept while the page is open). */
const decided: Decided[] = [];
const MAX_DECIDED = 20;

/** Calls waiting for approval, with their exact arguments; updated live as calls arrive and are decided. */
export function approvalsPane(root: HTMLElement): () => void {
  const list = h('div', { 'aria-live': 'polite', 'aria-label': 'Waiting calls' });
  const storeLine = h('p', { class: 'muted', hidden: true });
  const history = h('section', { 'aria-label': 'Decided here' });
  replace(
    root,
    h('h2', {}, 'Approvals'),
    h(
      'p',
      { class: 'muted' },
      "Calls that require approval wait here until you decide: from runs started in this studio, and from agent-spaces run, task or serve started with --studio and this studio's address.",
    ),
    storeLine,
    list,
    history,
  );
  const showDecided = (): void => (decided.length === 0 ? history.replaceChildren() : replace(history, ...renderDecided(decided)));
  showDecided();

  async function refresh(): Promise<void> {
    const { approvals, store } = await api<ApprovalListView>('GET', '/api/approvals');
    if (store) showStore(storeLine, store);
    if (approvals.length === 0) {
      replace(list, h('p', { class: 'muted', 'data-empty': 'true' }, 'Nothing is waiting.'));
      return;
    }
    replace(list, ...approvals.map((approval) => approvalCard(approval, decide)));
  }

  async function decide(approval: PendingApprovalView, approved: boolean, reason: string): Promise<void> {
    try {
      await api('POST', `/api/approvals/${approval.id}`, { approved, reason });
      toast(`${approval.capability}.${approval.function}: ${approved ? 'approved' : 'denied'}`);
      decided.unshift({ approval, approved, at: new Date() });
      decided.length = Math.min(decided.length, MAX_DECIDED);
      showDecided();
    } catch (error) {
      toast((error as Error).message);
    }
    await refresh();
  }

  const stops = [onEvent('approval-required', () => void refresh()), onEvent('approval-decided', () => void refresh())];
  void refresh();
  return () => stops.forEach((stop) => stop());
}

/** With a store: that its durable runs' approvals wait here too, or why it cannot be read. */
function showStore(storeLine: HTMLElement, store: NonNullable<ApprovalListView['store']>): void {
  storeLine.hidden = false;
  storeLine.className = store.problem ? 'error' : 'muted';
  storeLine.setAttribute('role', store.problem ? 'alert' : 'note');
  storeLine.textContent =
    store.problem ??
    `With the store ${store.url}: the approvals of every durable run in it wait here too, whoever started the run (also decided with agent-spaces approvals).`;
}

/** What was decided here, and where the run's result shows: a playground run's in the Playground. */
function renderDecided(entries: Decided[]): HTMLElement[] {
  return [
    h('h3', {}, 'Decided here'),
    h(
      'ul',
      { class: 'issues' },
      ...entries.map(({ approval, approved, at }) =>
        h(
          'li',
          {},
          h('code', {}, `${approval.capability}.${approval.function}`),
          ` ${approved ? 'approved' : 'denied'} at ${at.toLocaleTimeString()}`,
          approval.origin.kind === 'studio' && approval.runId?.startsWith('studio-') && !approval.runId.startsWith('studio-call-')
            ? [" · the run's result shows in the ", h('a', { href: '#/playground' }, 'Playground')]
            : null,
          approval.origin.kind === 'store' && approval.runId
            ? [' · ', h('a', { href: `#/runs/${encodeURIComponent(approval.runId)}` }, 'the run in the store')]
            : null,
        ),
      ),
    ),
  ];
}

/** One waiting call: what and who asked, its deadline, its exact arguments, a reason, Approve and Deny. */
function approvalCard(
  approval: PendingApprovalView,
  decide: (approval: PendingApprovalView, approved: boolean, reason: string) => Promise<void>,
): HTMLElement {
  const reason = h('input', { type: 'text', placeholder: 'optional, shown to the program' });
  return h(
    'article',
    { class: 'approval', 'aria-label': `${approval.capability}.${approval.function} waiting for approval`, 'data-approval': approval.id },
    h('h3', {}, h('code', {}, `${approval.capability}.${approval.function}`)),
    h('p', {}, approval.message),
    h(
      'p',
      { class: 'muted', 'data-origin': approval.origin.kind },
      `Asked ${new Date(approval.timestamp).toLocaleString()} ${describeOrigin(approval.origin)}${approval.runId ? `, run ${approval.runId}` : ''}`,
    ),
    approval.deadline
      ? h(
          'p',
          { class: 'warn', 'data-deadline': approval.deadline },
          `Denied at ${new Date(approval.deadline).toLocaleString()} unless decided before.`,
        )
      : null,
    h('h4', {}, 'Exact arguments'),
    jsonBlock(approval.params, 'Arguments'),
    labelled('Reason', reason),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'primary', onclick: () => void decide(approval, true, reason.value) }, 'Approve'),
      h('button', { type: 'button', class: 'danger', onclick: () => void decide(approval, false, reason.value) }, 'Deny'),
    ),
  );
}

function describeOrigin(origin: ApprovalOrigin): string {
  if (origin.kind === 'studio') return 'by a run in this studio';
  if (origin.kind === 'store') return `by a durable run in the store ${origin.store}`;
  return `by agent-spaces ${origin.kind} (pid ${origin.pid}) in ${origin.cwd}${origin.detail ? `: ${origin.detail}` : ''}`;
}

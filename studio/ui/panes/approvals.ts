import { api, onEvent } from '../api.js';
import { h, jsonBlock, labelled, replace, toast } from '../dom.js';

/** Where a call comes from: a run of this studio, or `agent-spaces run|task|serve --studio <address>`. */
type ApprovalOrigin = { kind: 'studio' } | { kind: 'run' | 'task' | 'serve'; pid: number; cwd: string; detail?: string };

interface PendingApproval {
  id: string;
  runId?: string;
  origin: ApprovalOrigin;
  capability: string;
  function: string;
  params: unknown;
  message: string;
  timestamp: string;
}

/** Calls waiting for approval, with their exact arguments; updated live as calls arrive and are decided. */
export function approvalsPane(root: HTMLElement): () => void {
  const list = h('div', { 'aria-live': 'polite', 'aria-label': 'Waiting calls' });
  replace(root, h('h2', {}, 'Approvals'), h('p', { class: 'muted' }, 'Calls that require approval wait here until you decide: from runs started in this studio, and from agent-spaces run, task or serve started with --studio and this studio\'s address.'), list);

  async function refresh(): Promise<void> {
    const { approvals } = await api<{ approvals: PendingApproval[] }>('GET', '/api/approvals');
    if (approvals.length === 0) {
      replace(list, h('p', { class: 'muted', 'data-empty': 'true' }, 'Nothing is waiting.'));
      return;
    }
    replace(list, ...approvals.map(render));
  }

  function render(approval: PendingApproval): HTMLElement {
    const reason = h('input', { type: 'text', placeholder: 'optional, shown to the program' });
    const decide = async (approved: boolean): Promise<void> => {
      try {
        await api('POST', `/api/approvals/${approval.id}`, { approved, reason: reason.value });
        toast(`${approval.capability}.${approval.function}: ${approved ? 'approved' : 'denied'}`);
      } catch (error) {
        toast((error as Error).message);
      }
      await refresh();
    };
    return h(
      'article',
      { class: 'approval', 'aria-label': `${approval.capability}.${approval.function} waiting for approval`, 'data-approval': approval.id },
      h('h3', {}, h('code', {}, `${approval.capability}.${approval.function}`)),
      h('p', {}, approval.message),
      h('p', { class: 'muted', 'data-origin': approval.origin.kind }, `Asked ${new Date(approval.timestamp).toLocaleTimeString()} ${describeOrigin(approval.origin)}${approval.runId ? `, run ${approval.runId}` : ''}`),
      h('h4', {}, 'Exact arguments'),
      jsonBlock(approval.params, 'Arguments'),
      labelled('Reason', reason),
      h('div', { class: 'row' }, h('button', { type: 'button', class: 'primary', onclick: () => void decide(true) }, 'Approve'), h('button', { type: 'button', class: 'danger', onclick: () => void decide(false) }, 'Deny')),
    );
  }

  function describeOrigin(origin: ApprovalOrigin): string {
    if (origin.kind === 'studio') return 'by a run in this studio';
    return `by agent-spaces ${origin.kind} (pid ${origin.pid}) in ${origin.cwd}${origin.detail ? `: ${origin.detail}` : ''}`;
  }

  const stops = [onEvent('approval-required', () => void refresh()), onEvent('approval-decided', () => void refresh())];
  void refresh();
  return () => stops.forEach((stop) => stop());
}

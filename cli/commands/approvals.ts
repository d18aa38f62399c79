import { loadConfig } from '../../config/index.js';
import { openStore, STORE_ENV, type StoredApproval } from '../../store/index.js';
import { formatArguments } from '../../bridge/index.js';
import { printJson, printText, progress, UsageError } from '../output.js';
import { storeOf } from '../store-option.js';

export interface ApprovalsCommandOptions {
  cwd: string;
  config?: string;
  json: boolean;
  store?: string;
  action: 'list' | 'approve' | 'deny';
  args: string[];
  all: boolean;
  reason?: string;
}

/** `agent-spaces approvals list | approve <id> | deny <id>`: the durable runs' approvals in the store. */
export async function approvalsCommand(options: ApprovalsCommandOptions): Promise<number> {
  const [id, ...rest] = options.args;
  if (options.action === 'list' ? id !== undefined : id === undefined || rest.length > 0) {
    throw new UsageError(
      options.action === 'list'
        ? `unexpected argument "${id}" (approvals list takes options only)`
        : `approvals ${options.action} takes one approval id (see agent-spaces approvals list)`,
    );
  }
  const config = await loadConfig({ cwd: options.cwd, ...(options.config ? { file: options.config } : {}) });
  const store = storeOf(options.store, config);
  if (store === undefined) throw new UsageError(`approvals live in a store: --store postgres://…, "store" in the config, or $${STORE_ENV}`);
  const opened = await openStore(store, { poolSize: 2 });
  const approvals = opened.approvals;
  try {
    if (options.action === 'list') {
      const list = await approvals.list({ all: options.all });
      if (options.json) printJson(list);
      else if (list.length === 0) progress(options.all ? 'no approvals' : 'no approvals are waiting');
      else for (const approval of list) printText(describe(approval));
      return 0;
    }
    const decided = await approvals.decide(id as string, {
      approved: options.action === 'approve',
      ...(options.reason ? { reason: options.reason } : {}),
    });
    if (options.json) printJson(decided);
    else progress(`${decided.id} ${decided.status}: ${decided.capability}.${decided.function} of run ${decided.runId}`);
    return 0;
  } finally {
    await opened.close();
  }
}

function describe(approval: StoredApproval): string {
  const when =
    approval.status === 'pending'
      ? `waiting since ${approval.createdAt}${approval.deadline ? `, denied at ${approval.deadline}` : ''}`
      : `${approval.status}${approval.reason ? ` (${approval.reason})` : ''}`;
  return `${approval.id}  ${approval.capability}.${approval.function}  run ${approval.runId}  ${when}\n    ${approval.message}\n    arguments: ${formatArguments(approval.params)}`;
}

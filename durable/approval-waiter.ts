import { expireApprovals, getStoredApproval, type StoredApproval } from './approval-store.js';
import { APPROVALS_CHANNEL, connectClient, storeUnavailable, type Pool } from './store.js';

export interface ApprovalWaiter {
  /** Resolves when the approval is decided (by anyone, or by its deadline passing). */
  wait(approval: StoredApproval): Promise<StoredApproval>;
  close(): Promise<void>;
}

/**
 * Waits for decisions in memory: one LISTEN connection wakes the waiting calls when an approval
 * is decided (`agent-spaces approvals approve` notifies), a timer at each deadline denies.
 */
export async function createApprovalWaiter(url: string, pool: Pool): Promise<ApprovalWaiter> {
  const client = await connectClient(url);
  client.on('error', () => undefined); // the worker's liveness connection reports a lost store
  const waiting = new Map<string, Set<() => void>>();
  client.on('notification', (message) => {
    for (const check of waiting.get(message.payload ?? '') ?? []) check();
  });
  try {
    await client.query(`LISTEN ${APPROVALS_CHANNEL}`);
  } catch (error) {
    // Not started: its connection goes too, or every failed start would leave one open.
    await client.end().catch(() => undefined);
    throw storeUnavailable(url, error);
  }
  return {
    wait(approval) {
      return new Promise<StoredApproval>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const checks = waiting.get(approval.id) ?? new Set<() => void>();
        waiting.set(approval.id, checks);
        const done = (): void => {
          checks.delete(check);
          if (checks.size === 0) waiting.delete(approval.id);
          if (timer) clearTimeout(timer);
        };
        const check = (): void => {
          getStoredApproval(pool, approval.id).then((current) => {
            if (current === undefined || current.status === 'pending') return;
            done();
            resolve(current);
          }, (error: unknown) => {
            done();
            reject(error instanceof Error ? error : new Error(String(error)));
          });
        };
        checks.add(check);
        if (approval.deadline !== undefined) {
          const delay = Math.max(0, Date.parse(approval.deadline) - Date.now());
          timer = setTimeout(() => void expireApprovals(pool).then(check, check), Math.min(delay, 2 ** 31 - 1));
        }
        check(); // decided between the request and now
      });
    },
    async close() {
      await client.end().catch(() => undefined);
    },
  };
}

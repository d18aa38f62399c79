import { expireApprovals, getStoredApproval, type StoredApproval } from './approval-store.js';
import { APPROVALS_CHANNEL, type Pool } from './store.js';
import { listenToStore } from './store-listener.js';

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
  const waiting = new Map<string, Set<() => void>>();
  // Reopened when it ends; decisions made meanwhile sent notifications nobody heard: every wait looks again.
  const listener = await listenToStore(
    url,
    [APPROVALS_CHANNEL],
    (approvalId) => {
      for (const check of waiting.get(approvalId) ?? []) check();
    },
    () => {
      for (const checks of waiting.values()) for (const check of checks) check();
    },
  );
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
          getStoredApproval(pool, approval.id).then(
            (current) => {
              if (current === undefined || current.status === 'pending') return;
              done();
              resolve(current);
            },
            (error: unknown) => {
              done();
              reject(error instanceof Error ? error : new Error(String(error)));
            },
          );
        };
        checks.add(check);
        if (approval.deadline !== undefined) {
          const delay = Math.max(0, Date.parse(approval.deadline) - Date.now());
          timer = setTimeout(() => void expireApprovals(pool).then(check, check), Math.min(delay, 2 ** 31 - 1));
        }
        check(); // decided between the request and now
      });
    },
    close: () => listener.close(),
  };
}

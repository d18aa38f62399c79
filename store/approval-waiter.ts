import { expireApprovals, getStoredApproval, type StoredApproval } from './approval-store.js';
import { APPROVALS_CHANNEL, type Pool } from './store.js';
import { listenToStore } from './store-listener.js';

/** How soon a deadline's timer looks again when the store did not yet count the deadline as passed. */
const DEADLINE_RECHECK_MS = 20;

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
        let settled = false;
        const checks = waiting.get(approval.id) ?? new Set<() => void>();
        waiting.set(approval.id, checks);
        const done = (): void => {
          settled = true;
          checks.delete(check);
          if (checks.size === 0) waiting.delete(approval.id);
          if (timer) clearTimeout(timer);
        };
        // A timer at the deadline denies it, and is set again while the approval stays pending: Node's timers
        // count from the event loop's cached time and may fire a little before the wall clock reaches the
        // deadline, the store compares with its own clock, and a timer waits at most ~24.8 days.
        const armDeadline = (): void => {
          if (approval.deadline === undefined || timer !== undefined || settled) return;
          const left = Date.parse(approval.deadline) - Date.now();
          timer = setTimeout(
            () => {
              timer = undefined;
              void expireApprovals(pool).then(check, check);
            },
            Math.min(Math.max(left, DEADLINE_RECHECK_MS), 2 ** 31 - 1),
          );
        };
        const check = (): void => {
          getStoredApproval(pool, approval.id).then(
            (current) => {
              if (settled) return;
              if (current === undefined || current.status === 'pending') return armDeadline();
              done();
              resolve(current);
            },
            (error: unknown) => {
              if (settled) return;
              done();
              reject(error instanceof Error ? error : new Error(String(error)));
            },
          );
        };
        checks.add(check);
        check(); // decided between the request and now
      });
    },
    close: () => listener.close(),
  };
}

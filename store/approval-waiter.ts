import { expireApprovals, getStoredApproval, type StoredApproval } from './approval-store.js';
import { DurableError } from './durable-error.js';
import { APPROVALS_CHANNEL, type Pool } from './store.js';
import { listenToStore } from './store-listener.js';

/**
 * How soon a deadline's timer looks again when the store did not count the deadline as passed yet: at
 * first soon (a timer that fired a little early), then twice as long each time up to a second (a store
 * whose clock lags this host's: one look a second per waiting approval, not fifty).
 */
const DEADLINE_RECHECK_MS = 20;
const DEADLINE_RECHECK_MAX_MS = 1_000;

export interface ApprovalWaiter {
  /** Resolves when the approval is decided (by anyone, or by its deadline passing); rejects with APPROVAL_NOT_FOUND when its row is gone. */
  wait(approval: StoredApproval): Promise<StoredApproval>;
  /** Stops listening and stops every deadline's timer (a wait still going stays unsettled: its run is being given up). */
  close(): Promise<void>;
}

/**
 * Waits for decisions in memory: one LISTEN connection wakes the waiting calls when an approval
 * is decided (`agent-spaces approvals approve` notifies), a timer at each deadline denies.
 */
export async function createApprovalWaiter(url: string, pool: Pool): Promise<ApprovalWaiter> {
  const waiting = new Map<string, Set<() => void>>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
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
        let recheckMs = DEADLINE_RECHECK_MS;
        const checks = waiting.get(approval.id) ?? new Set<() => void>();
        waiting.set(approval.id, checks);
        const clearTimer = (): void => {
          if (timer === undefined) return;
          clearTimeout(timer);
          timers.delete(timer);
          timer = undefined;
        };
        const done = (): void => {
          settled = true;
          checks.delete(check);
          if (checks.size === 0) waiting.delete(approval.id);
          clearTimer();
        };
        // A timer at the deadline denies it, and is set again while the approval stays pending: Node's timers
        // count from the event loop's cached time and may fire a little before the wall clock reaches the
        // deadline, the store compares with its own clock, and a timer waits at most ~24.8 days.
        const armDeadline = (): void => {
          if (approval.deadline === undefined || timer !== undefined || settled || closed) return;
          const left = Date.parse(approval.deadline) - Date.now();
          let delay: number;
          if (left > 0) delay = left;
          else {
            // Past it by this host's clock: look again soon, then less often.
            delay = recheckMs;
            recheckMs = Math.min(DEADLINE_RECHECK_MAX_MS, recheckMs * 2);
          }
          const armed = setTimeout(
            () => {
              timers.delete(armed);
              timer = undefined;
              void expireApprovals(pool).then(check, check);
            },
            Math.min(delay, 2 ** 31 - 1),
          );
          timer = armed;
          timers.add(armed);
        };
        const check = (): void => {
          getStoredApproval(pool, approval.id).then(
            (current) => {
              if (settled) return;
              if (current === undefined) {
                done();
                reject(
                  new DurableError('APPROVAL_NOT_FOUND', `the approval ${approval.id} of run ${approval.runId} vanished from the store`),
                );
                return;
              }
              if (current.status === 'pending') return armDeadline();
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
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await listener.close();
    },
  };
}

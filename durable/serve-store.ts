import { decideStoredApproval, getStoredApproval, listStoredApprovals, type StoredApproval } from './approval-store.js';
import { DurableError } from './durable-error.js';
import { liveWorkers } from './liveness.js';
import { createSessionStore, type SessionStore } from './session-store.js';
import { createPool, ensureStoreSchema } from './store.js';

/** What `agent-spaces serve` needs of the store besides submitting runs: workers, a run's approvals, sessions. */
export interface ServeStore {
  readonly url: string;
  /** How many workers are alive now (0: a submitted run would wait in the queue). */
  liveWorkers(): Promise<number>;
  /** The approvals of a run still waiting for a decision, oldest first. */
  pendingApprovals(runId: string): Promise<StoredApproval[]>;
  approval(id: string): Promise<StoredApproval | undefined>;
  /**
   * Decides a pending approval of `runId`; `false` when it was decided already (the first decision
   * stands) or belongs to another run.
   */
  decide(runId: string, id: string, decision: { approved: boolean; reason?: string }): Promise<boolean>;
  readonly sessions: SessionStore;
  close(): Promise<void>;
}

/** Opens the store for a serve process (one small pool for all its requests). */
export async function openServeStore(url: string, options: { sessionIdleMs: number }): Promise<ServeStore> {
  const pool = createPool(url, 4);
  try {
    await ensureStoreSchema(url, pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return {
    url,
    liveWorkers: async () => (await liveWorkers(pool)).length,
    pendingApprovals: async (runId) => (await listStoredApprovals(pool, { runId })).reverse(),
    approval: (id) => getStoredApproval(pool, id),
    async decide(runId, id, decision) {
      const approval = await getStoredApproval(pool, id);
      if (approval === undefined || approval.runId !== runId || approval.status !== 'pending') return false;
      try {
        await decideStoredApproval(pool, id, decision);
        return true;
      } catch (error) {
        // Decided by someone else in between (the CLI, the studio, its deadline): theirs stands.
        if (error instanceof DurableError && error.code === 'APPROVAL_DECIDED') return false;
        throw error;
      }
    },
    sessions: createSessionStore(pool, options.sessionIdleMs),
    close: () => pool.end(),
  };
}

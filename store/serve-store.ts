import type { RunResult } from '../core/index.js';
import type { StoredApproval } from './approval-store.js';
import { DurableError } from './durable-error.js';
import { openStore, type Store } from './open-store.js';
import type { StoredServeSessions } from './serve-sessions.js';
import type { SubmitRunOptions } from './submit-run.js';

/** What `agent-spaces serve` needs of the store: submitting runs, workers, a run's approvals, sessions. */
export interface ServeStore {
  readonly url: string;
  /** `submitRun` through this replica's connections: following a run opens none of its own. */
  submitRun(options: Omit<SubmitRunOptions, 'store'>): Promise<RunResult & { runId: string }>;
  /** The approvals of a run still waiting for a decision, oldest first. */
  pendingApprovals(runId: string): Promise<StoredApproval[]>;
  approval(id: string): Promise<StoredApproval | undefined>;
  /**
   * Decides a pending approval of `runId`; `false` when it was decided already (the first decision
   * stands) or belongs to another run.
   */
  decide(runId: string, id: string, decision: { approved: boolean; reason?: string }): Promise<boolean>;
  /** Whether the run has any event in the store (it started, at least): false once retention deleted it. */
  hasEvents(runId: string): Promise<boolean>;
  /** The result a finished run ended with, as `submitRun` gave it (run id included); undefined while it runs, or once pruned. */
  runResult(runId: string): Promise<(RunResult & { runId: string }) | undefined>;
  readonly sessions: StoredServeSessions;
  close(): Promise<void>;
}

/**
 * Opens the store for a serve process: one small pool and one LISTEN connection for all its requests
 * and the runs it follows, however many.
 */
export async function openServeStore(url: string, options: { sessionIdleMs: number }): Promise<ServeStore> {
  const store = await openStore(url, { poolSize: 3 });
  try {
    await store.connection();
  } catch (error) {
    await store.close();
    throw error;
  }
  return serveStoreOf(store, options);
}

/** The store as serve uses it, a view of `store` (closing it closes the store). */
export function serveStoreOf(store: Store, options: { sessionIdleMs: number }): ServeStore {
  return {
    url: store.url,
    submitRun: (run) => store.runs.submit(run),
    pendingApprovals: async (runId) => (await store.approvals.list({ runId })).reverse(),
    approval: (id) => store.approvals.get(id),
    async decide(runId, id, decision) {
      const approval = await store.approvals.get(id);
      if (approval === undefined || approval.runId !== runId || approval.status !== 'pending') return false;
      try {
        await store.approvals.decide(id, decision);
        return true;
      } catch (error) {
        // Decided by someone else in between (the CLI, the studio, its deadline): theirs stands.
        if (error instanceof DurableError && error.code === 'APPROVAL_DECIDED') return false;
        throw error;
      }
    },
    hasEvents: (runId) => store.runs.hasEvents(runId),
    runResult: (runId) => store.runs.result(runId),
    sessions: store.serveSessions(options.sessionIdleMs),
    close: () => store.close(),
  };
}

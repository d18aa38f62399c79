import type { RunResult } from '../core/index.js';
import { decideStoredApproval, getStoredApproval, listStoredApprovals, type StoredApproval } from './approval-store.js';
import { DurableError } from './durable-error.js';
import { readRunEnd } from './run-events.js';
import { SCHEMA } from './store.js';
import { createSessionStore, type SessionStore } from './session-store.js';
import { openStoreConnection } from './store-connection.js';
import { submitRun, type SubmitRunOptions } from './submit-run.js';

/** What `agent-spaces serve` needs of the store: submitting runs, workers, a run's approvals, sessions. */
export interface ServeStore {
  readonly url: string;
  /** `submitRun` through this replica's connections: following a run opens none of its own. */
  submitRun(options: Omit<SubmitRunOptions, 'store'>): Promise<RunResult & { runId: string }>;
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
  /** Whether the run has any event in the store (it started, at least): false once retention deleted it. */
  hasEvents(runId: string): Promise<boolean>;
  /** The result a finished run ended with, as `submitRun` gave it (run id included); undefined while it runs, or once pruned. */
  runResult(runId: string): Promise<(RunResult & { runId: string }) | undefined>;
  readonly sessions: SessionStore;
  close(): Promise<void>;
}

/**
 * Opens the store for a serve process: one small pool and one LISTEN connection for all its requests
 * and the runs it follows, however many.
 */
export async function openServeStore(url: string, options: { sessionIdleMs: number }): Promise<ServeStore> {
  const connection = await openStoreConnection(url, 3);
  const pool = connection.pool;
  return {
    url,
    submitRun: (run) => submitRun({ ...run, store: url }, connection),
    liveWorkers: async () => (await connection.liveWorkers()).length,
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
    async hasEvents(runId) {
      const { rows } = await pool.query(`SELECT 1 FROM ${SCHEMA}.run_events WHERE run_id = $1 LIMIT 1`, [runId]);
      return rows.length > 0;
    },
    async runResult(runId) {
      const result = await readRunEnd(pool, runId);
      return result === undefined ? undefined : { ...(result as RunResult), runId };
    },
    sessions: createSessionStore(pool, options.sessionIdleMs),
    close: () => connection.close(),
  };
}

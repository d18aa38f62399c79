// The store's views opened one at a time (a command that needs only one): each opens the store with a
// pool sized for it, and closing the view closes that store. A process that needs several opens the
// store once (`openStore`) and takes its views from it.
import type { SecretInput } from '../core/index.js';
import type { StoredA2ATasks } from './a2a-task-store.js';
import type { StoredAgentSessions } from './agent-session-store.js';
import type { StoredApprovals } from './open-store.js';
import { openStore } from './open-store.js';
import type { PruneReport } from './prune.js';
import type { StoreMonitor } from './store-monitor.js';
import type { StoredTrace } from './trace-store.js';

/** The store's approvals: list, approve, deny (for `agent-spaces approvals` and the library). */
export async function openApprovals(url: string): Promise<Omit<StoredApprovals, 'get'> & { close(): Promise<void> }> {
  const store = await openStore(url, { poolSize: 2 });
  return {
    list: (options) => store.approvals.list(options),
    decide: (id, decision) => store.approvals.decide(id, decision),
    close: () => store.close(),
  };
}

/** Watches the store for a UI: pending approvals to decide, runs and their status, live workers. */
export async function openStoreMonitor(url: string): Promise<StoreMonitor> {
  const store = await openStore(url, { poolSize: 5 });
  return { ...store.monitor, close: () => store.close() };
}

/** The store's A2A tasks, one TaskStore per served agent (for `agent serve --a2a` with a store). */
export async function openA2ATaskStores(url: string): Promise<StoredA2ATasks> {
  const store = await openStore(url, { poolSize: 4 });
  return { forAgent: store.a2aTasks.forAgent, traceRecorder: store.a2aTasks.traceRecorder, close: () => store.close() };
}

/** The store's `execute_agent` sessions; `secrets` are redacted before writing. */
export async function openAgentSessionStore(url: string, secrets: readonly SecretInput[] = []): Promise<StoredAgentSessions> {
  const store = await openStore(url, { poolSize: 4 });
  return { ...store.agentSessions(secrets), close: () => store.close() };
}

/** The trace of a run or task a worker executed; undefined when the store has none. */
export async function readStoredTrace(url: string, id: string): Promise<StoredTrace | undefined> {
  const store = await openStore(url, { poolSize: 1 });
  try {
    return await store.traces.read(id);
  } finally {
    await store.close();
  }
}

export interface PruneStoreOptions {
  /** The store's PostgreSQL URL. */
  store: string;
  /** Runs that ended longer ago than this (ms) lose their rows; 0: every finished run. */
  olderThanMs: number;
}

/**
 * Deletes the rows of the store's runs and tasks that ended more than `olderThanMs` ago (see
 * `pruneFinishedRuns`). `undefined` when a worker is pruning the same store right now.
 */
export async function pruneStore(options: PruneStoreOptions): Promise<PruneReport | undefined> {
  const store = await openStore(options.store, { poolSize: 3 });
  try {
    return await store.retention.prune(options.olderThanMs);
  } finally {
    await store.close();
  }
}

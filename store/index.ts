// Durable runs (a store: PostgreSQL + DBOS). Nothing here loads DBOS or pg until a function is
// called: without a store, no process pays for them.
import type { StoredApproval } from './approval-store.js';
import type { SubmitRunOptions, SubmitTaskOptions } from './submit-run.js';
import type { StoreConnection } from './store-connection.js';
import type { PruneStoreOptions } from './prune-store.js';
import type { PruneReport } from './prune.js';
import type { ServeStore } from './serve-store.js';
import type { RunResult, SecretInput } from '../core/index.js';
import type { A2ATaskStores } from './a2a-task-store.js';
import type { AgentSessionStore } from './agent-session-store.js';
import type { StoredTrace } from './trace-store.js';
import type { StoreMonitor } from './store-monitor.js';

export { describeStore, resolveStoreUrl, STORE_ENV } from './store-url.js';
export { DurableError, type DurableErrorCode } from './durable-error.js';
export type { DurableRunEvent } from './run-events.js';
export type { StoredApproval, ApprovalStatus } from './approval-store.js';
export type { SubmitRunOptions, SubmitTaskOptions } from './submit-run.js';
export type { StoreConnection } from './store-connection.js';
export type { PruneStoreOptions } from './prune-store.js';
export type { PruneReport } from './prune.js';
export { parseDuration } from './duration.js';
export type { A2ATaskStores } from './a2a-task-store.js';
export type { AgentSessionStore, StoredAgentSession } from './agent-session-store.js';
export type { StoredTrace } from './trace-store.js';
export type { ServeStore } from './serve-store.js';
export type { SessionStore } from './session-store.js';
export type { StoreMonitor, StoredRun, StoredRunSummary } from './store-monitor.js';

/**
 * Submits a program to the store and waits for its result (see store/submit-run.ts); through `shared`
 * connections when given (a process following many runs), else through connections of its own.
 */
export async function submitRun(options: SubmitRunOptions, shared?: StoreConnection): Promise<RunResult & { runId: string }> {
  return (await import('./submit-run.js')).submitRun(options, shared);
}

/**
 * Submits a planner task to the store and waits for its result (see store/submit-run.ts): what the
 * worker's `executeTask` returned (a `TaskResult`; worker/index.ts says so in its type).
 */
export async function submitTask<Result = unknown>(options: SubmitTaskOptions, shared?: StoreConnection): Promise<Result> {
  return (await import('./submit-run.js')).submitTask<Result>(options, shared);
}

/** One pool and one LISTEN connection for all the runs a process submits and follows (see store/store-connection.ts). */
export async function openStoreConnection(store: string, poolSize = 3): Promise<StoreConnection> {
  return (await import('./store-connection.js')).openStoreConnection(store, poolSize);
}

/** Deletes the rows of runs that ended before a cutoff (see store/prune-store.ts); undefined while a worker prunes. */
export async function pruneStore(options: PruneStoreOptions): Promise<PruneReport | undefined> {
  return (await import('./prune-store.js')).pruneStore(options);
}

/** The store's approvals: list, approve, deny (for `agent-spaces approvals` and the library). */
export async function openApprovals(store: string): Promise<{
  list(options?: { all?: boolean }): Promise<StoredApproval[]>;
  decide(id: string, decision: { approved: boolean; reason?: string }): Promise<StoredApproval>;
  close(): Promise<void>;
}> {
  const [{ openStorePool }, approvals] = await Promise.all([import('./store.js'), import('./approval-store.js')]);
  const pool = await openStorePool(store, 2);
  return {
    list: (options) => approvals.listStoredApprovals(pool, options),
    decide: (id, decision) => approvals.decideStoredApproval(pool, id, decision),
    close: () => pool.end(),
  };
}

/** Watches the store for a UI (the studio): pending approvals to decide, runs and their status, live workers. */
export async function openStoreMonitor(store: string): Promise<StoreMonitor> {
  return (await import('./store-monitor.js')).openStoreMonitor(store);
}

/** The store as `agent-spaces serve` uses it: live workers, a run's approvals, sessions shared by replicas. */
export async function openServeStore(store: string, options: { sessionIdleMs: number }): Promise<ServeStore> {
  return (await import('./serve-store.js')).openServeStore(store, options);
}

/** The store's A2A tasks, one TaskStore per served agent (for `agent serve --a2a` with a store). */
export async function openA2ATaskStores(store: string): Promise<A2ATaskStores> {
  return (await import('./a2a-task-store.js')).openA2ATaskStores(store);
}

/** The store's `execute_agent` sessions (for workers and `agents serve` with a store); `secrets` are redacted before writing. */
export async function openAgentSessionStore(store: string, secrets: readonly SecretInput[] = []): Promise<AgentSessionStore> {
  return (await import('./agent-session-store.js')).openAgentSessionStore(store, secrets);
}

/** The trace of a run or task a worker executed (see store/trace-store.ts); undefined when the store has none. */
export async function readStoredTrace(store: string, id: string): Promise<StoredTrace | undefined> {
  const [{ openStorePool }, traces] = await Promise.all([import('./store.js'), import('./trace-store.js')]);
  const pool = await openStorePool(store, 1);
  try {
    return await traces.readStoredTrace(pool, id);
  } finally {
    await pool.end();
  }
}

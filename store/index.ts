// Durable runs: one store over PostgreSQL (DBOS) with its views (runs, approvals, sessions, A2A tasks,
// traces, retention). Nothing here loads DBOS or pg until a function is called: without a store, no
// process pays for them.
import type { SubmitRunOptions, SubmitTaskOptions } from './submit-run.js';
import type { StoreConnection } from './store-connection.js';
import type { ServeStore } from './serve-store.js';
import type { RunResult } from '../core/index.js';
import type { Store, StoreOptions } from './open-store.js';
import type * as SingleViews from './single-views.js';

export { describeStore, resolveStoreUrl, STORE_ENV } from './store-url.js';
export { DurableError, type DurableErrorCode } from './durable-error.js';
export type { DurableRunEvent } from './run-events.js';
export type { StoredApproval, ApprovalStatus } from './approval-store.js';
export type { SubmitRunOptions, SubmitTaskOptions } from './submit-run.js';
export type { StoreConnection } from './store-connection.js';
export type { PruneStoreOptions } from './single-views.js';
export type { PruneReport } from './prune.js';
export { parseDuration } from './duration.js';
export type { Store, StoreOptions, StoredApprovals, StoredRuns } from './open-store.js';
export type { StoredA2ATasks } from './a2a-task-store.js';
export type { StoredAgentSessions, StoredAgentSession } from './agent-session-store.js';
export type { StoredTrace } from './trace-store.js';
export type { ServeStore } from './serve-store.js';
export type { StoredServeSessions } from './serve-sessions.js';
export type { StoredSessionEntry, StoredSessionLimits, StoredSessionState } from './session-state.js';
export type { StoreMonitor, StoredRun, StoredRunSummary } from './store-monitor.js';

/**
 * Opens the store at `url`: one pool for all its views (`runs`, `approvals`, `a2aTasks`, `traces`,
 * `retention`, `agentSessions()`, `serveSessions()`, `monitor`), DBOS's client and the LISTEN
 * connection opened when first needed; `close()` closes them all (see store/open-store.ts).
 */
export async function openStore(url: string, options?: StoreOptions): Promise<Store> {
  return (await import('./open-store.js')).openStore(url, options);
}

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

/** The store as `agent-spaces serve` uses it: live workers, a run's approvals, sessions shared by replicas. */
export async function openServeStore(store: string, options: { sessionIdleMs: number }): Promise<ServeStore> {
  return (await import('./serve-store.js')).openServeStore(store, options);
}

// One view of the store, opened alone (store/single-views.ts): for a command that needs only that one.

/** Deletes the rows of runs that ended before a cutoff; undefined while a worker prunes. Same as `openStore(url).retention.prune`. */
export async function pruneStore(...args: Parameters<typeof SingleViews.pruneStore>): ReturnType<typeof SingleViews.pruneStore> {
  return (await import('./single-views.js')).pruneStore(...args);
}

/**
 * The store's approvals: list, approve, deny.
 * @deprecated open the store once with `openStore(url)` and use its `approvals` (kept for the package root's users).
 */
export async function openApprovals(...args: Parameters<typeof SingleViews.openApprovals>): ReturnType<typeof SingleViews.openApprovals> {
  return (await import('./single-views.js')).openApprovals(...args);
}

/** Watches the store for a UI: the `monitor` view of a store of its own. */
export async function openStoreMonitor(
  ...args: Parameters<typeof SingleViews.openStoreMonitor>
): ReturnType<typeof SingleViews.openStoreMonitor> {
  return (await import('./single-views.js')).openStoreMonitor(...args);
}

/** The store's A2A tasks (for `agent serve --a2a` with a store): the `a2aTasks` view of a store of its own. */
export async function openA2ATaskStores(
  ...args: Parameters<typeof SingleViews.openA2ATaskStores>
): ReturnType<typeof SingleViews.openA2ATaskStores> {
  return (await import('./single-views.js')).openA2ATaskStores(...args);
}

/** The store's `execute_agent` sessions, `secrets` redacted before writing: the `agentSessions` view of a store of its own. */
export async function openAgentSessionStore(
  ...args: Parameters<typeof SingleViews.openAgentSessionStore>
): ReturnType<typeof SingleViews.openAgentSessionStore> {
  return (await import('./single-views.js')).openAgentSessionStore(...args);
}

/** The trace of a run or task a worker executed; undefined when the store has none. */
export async function readStoredTrace(
  ...args: Parameters<typeof SingleViews.readStoredTrace>
): ReturnType<typeof SingleViews.readStoredTrace> {
  return (await import('./single-views.js')).readStoredTrace(...args);
}

// One store object over PostgreSQL (DBOS): one pool for every view, DBOS's client and the LISTEN
// connection opened when a view first needs them, closed together.
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import type { RunResult, SecretInput } from '../core/index.js';
import { createStoredA2ATasks, type StoredA2ATasks } from './a2a-task-store.js';
import { createStoredAgentSessions, type StoredAgentSessions } from './agent-session-store.js';
import { decideStoredApproval, getStoredApproval, listStoredApprovals, type StoredApproval } from './approval-store.js';
import { openDbosClient } from './dbos-client.js';
import { liveWorkers } from './liveness.js';
import { pruneOnce, type PruneReport } from './prune.js';
import { readRunEnd } from './run-events.js';
import { createStoredServeSessions, type StoredServeSessions } from './serve-sessions.js';
import { createStoredSessionState, type StoredSessionState } from './session-state.js';
import { openStorePool, SCHEMA, type Pool } from './store.js';
import { followRunEvents, storeConnection, type RunFollowers, type StoreConnection } from './store-connection.js';
import { createStoreMonitor, type StoredRun, type StoredRunSummary, type StoreMonitor } from './store-monitor.js';
import { describeStore } from './store-url.js';
import { submitRun, submitTask, type SubmitRunOptions, type SubmitTaskOptions } from './submit-run.js';
import { readStoredTrace, type StoredTrace } from './trace-store.js';

/** The store's runs and planner tasks: submitting and following them, reading them back, the workers alive. */
export interface StoredRuns {
  /** Submits a program and waits for its result (see `submitRun`), through the store's connections. */
  submit(options: Omit<SubmitRunOptions, 'store'>): Promise<RunResult & { runId: string }>;
  /** Submits a planner task and waits for what the worker's `executeTask` returned (a `TaskResult`). */
  submitTask<Result = unknown>(options: Omit<SubmitTaskOptions, 'store'>): Promise<Result>;
  /** The newest runs and tasks (at most `limit`). */
  list(limit?: number): Promise<StoredRunSummary[]>;
  get(id: string): Promise<StoredRun | undefined>;
  /** The result a finished run ended with (run id included); undefined while it runs, or once pruned. */
  result(runId: string): Promise<(RunResult & { runId: string }) | undefined>;
  /** Whether the run has any event in the store (it started, at least): false once retention deleted it. */
  hasEvents(runId: string): Promise<boolean>;
  /** The ids of the workers alive now. */
  liveWorkers(): Promise<string[]>;
}

/** The store's approvals (of calls of durable runs): list, read, decide. */
export interface StoredApprovals {
  /** Pending approvals, newest first (`all`: decided ones too; `runId`: that run's only). */
  list(options?: { all?: boolean; runId?: string }): Promise<StoredApproval[]>;
  get(id: string): Promise<StoredApproval | undefined>;
  /** Decides the approval whose id is or starts with `id` (a unique prefix, as the CLI takes it). */
  decide(id: string, decision: { approved: boolean; reason?: string }): Promise<StoredApproval>;
}

/**
 * A durable runs' store: one PostgreSQL database, shared by workers, submitters, serve replicas and the
 * studio. Each view is the store's; `close` closes everything it opened.
 */
export interface Store {
  /** The URL, password included: for the library's calls, never shown. */
  readonly url: string;
  /** The URL without its password. */
  readonly label: string;
  readonly runs: StoredRuns;
  readonly approvals: StoredApprovals;
  /** A2A tasks of served agents (`agent serve --a2a`), and their traces. */
  readonly a2aTasks: StoredA2ATasks;
  /** Traces of runs and tasks workers executed (`agent-spaces trace`). */
  readonly traces: { read(id: string): Promise<StoredTrace | undefined> };
  /** Deletes the rows of runs that ended before `olderThanMs` ago; undefined while a worker prunes. */
  readonly retention: { prune(olderThanMs: number): Promise<PruneReport | undefined> };
  /** `execute_agent` sessions, with `secrets` cut out of every message before it is written. */
  agentSessions(secrets?: readonly SecretInput[]): StoredAgentSessions;
  /** MCP sessions of serve replicas; one idle for longer than `idleMs` is gone. */
  serveSessions(idleMs: number): StoredServeSessions;
  /** Session state (`@capabilities/session`) kept in the store: pass it as the space's `sessionState`. */
  readonly sessionState: StoredSessionState;
  /** What a UI watches (the studio): approvals to decide, runs, workers, a wake-up on changes. */
  readonly monitor: StoreMonitor;
  /** The submitters' connections (DBOS's client, the LISTEN connection for run events), opened on first use. */
  connection(): Promise<StoreConnection>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Connections of the store's pool (default 5): its views and DBOS's client share them. */
  poolSize?: number;
}

/** Opens the store at `url` (its tables made when missing); STORE_UNAVAILABLE when it cannot be reached. */
export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  return new PostgresStore(url, await openStorePool(url, options.poolSize ?? 5));
}

class PostgresStore implements Store {
  readonly label: string;
  readonly runs: StoredRuns;
  readonly approvals: StoredApprovals;
  readonly a2aTasks: StoredA2ATasks;
  readonly traces: Store['traces'];
  readonly retention: Store['retention'];
  readonly monitor: StoreMonitor;
  readonly sessionState: StoredSessionState;
  #dbos: Promise<DBOSClient> | undefined;
  #connection: Promise<{ connection: StoreConnection; followers: RunFollowers }> | undefined;
  #closed = false;

  constructor(
    readonly url: string,
    private readonly pool: Pool,
  ) {
    this.label = describeStore(url);
    this.runs = this.#storedRuns();
    this.approvals = {
      list: (options) => listStoredApprovals(pool, options),
      get: (id) => getStoredApproval(pool, id),
      decide: (id, decision) => decideStoredApproval(pool, id, decision),
    };
    this.a2aTasks = createStoredA2ATasks(pool);
    this.traces = { read: (id) => readStoredTrace(pool, id) };
    this.sessionState = createStoredSessionState(pool, url);
    this.retention = {
      prune: async (olderThanMs) => {
        const dbos = await this.#dbosClient();
        const workflows = { listWorkflows: dbos.listWorkflows.bind(dbos), deleteWorkflows: dbos.deleteWorkflows.bind(dbos) };
        return pruneOnce(pool, workflows, new Date(Date.now() - olderThanMs));
      },
    };
    // Closed by the store's close (its watch stops then); the pool and DBOS's client are the store's.
    this.monitor = createStoreMonitor(
      url,
      pool,
      () => this.#dbosClient(),
      async () => undefined,
    );
  }

  agentSessions(secrets: readonly SecretInput[] = []): StoredAgentSessions {
    return { ...createStoredAgentSessions(this.pool, secrets, this.url), close: async () => undefined };
  }

  serveSessions(idleMs: number): StoredServeSessions {
    return createStoredServeSessions(this.pool, idleMs);
  }

  async connection(): Promise<StoreConnection> {
    this.#connection ??= this.#openConnection().catch((error: unknown) => {
      this.#connection = undefined; // the next call tries again
      throw error;
    });
    return (await this.#connection).connection;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.monitor.close();
    await this.a2aTasks.close();
    const opened = await this.#connection?.catch(() => undefined);
    await opened?.followers.close();
    const dbos = await this.#dbos?.catch(() => undefined);
    await dbos?.destroy().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  #storedRuns(): StoredRuns {
    const pool = this.pool;
    let looking: Promise<string[]> | undefined;
    return {
      submit: async (options) => submitRun({ ...options, store: this.url }, await this.connection()),
      submitTask: async <Result>(options: Omit<SubmitTaskOptions, 'store'>) =>
        submitTask<Result>({ ...options, store: this.url }, await this.connection()),
      list: (limit) => this.monitor.runs(limit),
      get: (id) => this.monitor.run(id),
      async result(runId) {
        const result = await readRunEnd(pool, runId);
        return result === undefined ? undefined : { ...(result as RunResult), runId };
      },
      async hasEvents(runId) {
        const { rows } = await pool.query(`SELECT 1 FROM ${SCHEMA}.run_events WHERE run_id = $1 LIMIT 1`, [runId]);
        return rows.length > 0;
      },
      // One look at a time: a look holds two of the pool's connections.
      liveWorkers() {
        looking ??= liveWorkers(pool).finally(() => (looking = undefined));
        return looking;
      },
    };
  }

  #dbosClient(): Promise<DBOSClient> {
    this.#dbos ??= openDbosClient(this.url, this.pool).catch((error: unknown) => {
      this.#dbos = undefined; // the next call tries again
      throw error;
    });
    return this.#dbos;
  }

  async #openConnection(): Promise<{ connection: StoreConnection; followers: RunFollowers }> {
    const followers = await followRunEvents(this.url);
    try {
      const dbos = await this.#dbosClient();
      // Closed with the store (its connections are the store's).
      return { followers, connection: storeConnection(this.url, this.pool, dbos, followers, async () => undefined) };
    } catch (error) {
      await followers.close();
      throw error;
    }
  }
}

import type { DBOSClient, WorkflowStatus } from '@dbos-inc/dbos-sdk';
import { decideStoredApproval, getStoredApproval, listStoredApprovals, type StoredApproval } from './approval-store.js';
import { DurableError } from './durable-error.js';
import { liveWorkers } from './liveness.js';
import { workflowErrorMessage } from './queue-run.js';
import { readRunEvents, type DurableRunEvent } from './run-events.js';
import { APPROVALS_CHANNEL, RUN_EVENTS_CHANNEL, type Pool } from './store.js';
import { listenToStore, type StoreListener } from './store-listener.js';
import { APPLICATION_NAME, RUN_WORKFLOW, TASK_WORKFLOW, type DurableRunRequest, type DurableTaskRequest } from './workflow-names.js';

/** A run or task of the store, as a list shows it (whoever submitted it). */
export interface StoredRunSummary {
  id: string;
  kind: 'run' | 'task';
  /** DBOS's status: ENQUEUED (no worker took it yet), PENDING (running, or its worker died), SUCCESS, ERROR, CANCELLED, … */
  status: string;
  createdAt: string;
  updatedAt?: string;
  /** The worker that runs (or ran) it. */
  executorId?: string;
  /** The program's first line, or the task's words. */
  title: string;
  /** For a finished run: what its result said. */
  success?: boolean;
  error?: string;
}

/** One stored run, whole: its request, result (when ended) and the events its workers reported. */
export interface StoredRun extends StoredRunSummary {
  code?: string;
  task?: string;
  result?: unknown;
  events: DurableRunEvent[];
}

/** What a UI over the store reads and does (the studio): approvals, runs, workers, and a wake-up on changes. */
export interface StoreMonitor {
  /** Pending approvals, newest first (those past their deadline are denied first). */
  pendingApprovals(): Promise<StoredApproval[]>;
  approval(id: string): Promise<StoredApproval | undefined>;
  /** Decides the approval with exactly this id (no prefix) and wakes the worker waiting on it. */
  decide(id: string, decision: { approved: boolean; reason: string }): Promise<StoredApproval>;
  /** The newest runs and tasks of the store (at most `limit`). */
  runs(limit?: number): Promise<StoredRunSummary[]>;
  run(id: string): Promise<StoredRun | undefined>;
  liveWorkers(): Promise<string[]>;
  /**
   * Calls `listener` when something may have changed: a run's event (a new approval comes with
   * one), a decided approval, and every `pollMs` (deadlines pass without a notification; a lost
   * connection is opened again then).
   */
  watch(listener: () => void, pollMs?: number): void;
  close(): Promise<void>;
}

const UNTITLED = '(no request)';

/**
 * The monitor over `pool`, with DBOS's client from `client` (opened when first needed); closing it
 * stops its watch and then calls `release` (what the monitor's opener holds for it).
 */
export function createStoreMonitor(
  store: string,
  pool: Pool,
  client: () => Promise<DBOSClient>,
  release: () => Promise<void>,
): StoreMonitor {
  /** Opened by the first `watch` (and tried again by each poll until it opens); it reopens itself after. */
  let listener: Promise<StoreListener | undefined> | undefined;
  let listening: StoreListener | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function ensureListening(wake: () => void): void {
    if (closed || listener !== undefined) return;
    const opening = listenToStore(store, [RUN_EVENTS_CHANNEL, APPROVALS_CHANNEL], wake, wake).then(
      async (opened) => {
        if (!closed) return (listening = opened);
        await opened.close();
        return undefined;
      },
      () => {
        listener = undefined; // the next poll tries again
        return undefined;
      },
    );
    listener = opening;
  }

  return {
    pendingApprovals: () => listStoredApprovals(pool),
    approval: (id) => getStoredApproval(pool, id),
    async decide(id, decision) {
      // decideStoredApproval takes prefixes (for the CLI); a click decides the approval it shows, no other.
      const current = await getStoredApproval(pool, id);
      if (current === undefined) throw new DurableError('APPROVAL_NOT_FOUND', `no approval has the id "${id}" in the store`);
      return decideStoredApproval(pool, current.id, decision);
    },
    async runs(limit = 100) {
      const statuses = await (
        await client()
      ).listWorkflows({
        workflowName: [RUN_WORKFLOW, TASK_WORKFLOW],
        applicationName: APPLICATION_NAME,
        sortDesc: true,
        limit,
        loadInput: true,
        loadOutput: true,
      });
      return statuses.map(summarize);
    },
    async run(id) {
      const [status] = await (
        await client()
      ).listWorkflows({ workflowIDs: [id], workflowName: [RUN_WORKFLOW, TASK_WORKFLOW], loadInput: true, loadOutput: true });
      if (status === undefined) return undefined;
      const request = status.input?.[0] as Partial<DurableRunRequest & DurableTaskRequest> | undefined;
      const events = (await readRunEvents(pool, id, 0)).map(({ event }) => event);
      return {
        ...summarize(status),
        ...(typeof request?.code === 'string' ? { code: request.code } : {}),
        ...(typeof request?.task === 'string' ? { task: request.task } : {}),
        ...(status.output === undefined ? {} : { result: status.output }),
        events,
      };
    },
    liveWorkers: () => liveWorkers(pool),
    watch(wake, pollMs = 5000) {
      const tick = (): void => {
        if (closed) return;
        ensureListening(wake);
        wake();
      };
      ensureListening(wake);
      timer = setInterval(tick, pollMs);
      timer.unref();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      // One still being opened ends itself when it finds the monitor closed (not awaited: a store that
      // does not answer would hold the studio's stop for as long as its connection attempt).
      await listening?.close();
      await release();
    },
  };
}

function summarize(status: WorkflowStatus): StoredRunSummary {
  const request = status.input?.[0] as Partial<DurableRunRequest & DurableTaskRequest> | undefined;
  const output = status.output as { success?: unknown; error?: { message?: unknown } | string; finalSummary?: unknown } | undefined;
  const failure =
    typeof output?.error === 'string'
      ? output.error
      : typeof output?.error?.message === 'string'
        ? output.error.message
        : status.error === undefined
          ? undefined
          : workflowErrorMessage(status.error);
  return {
    id: status.workflowID,
    kind: status.workflowName === TASK_WORKFLOW ? 'task' : 'run',
    status: status.status,
    createdAt: new Date(status.createdAt).toISOString(),
    ...(status.updatedAt === undefined ? {} : { updatedAt: new Date(status.updatedAt).toISOString() }),
    ...(status.executorId === undefined ? {} : { executorId: status.executorId }),
    title: typeof request?.task === 'string' ? request.task : typeof request?.code === 'string' ? firstLine(request.code) : UNTITLED,
    ...(typeof output?.success === 'boolean'
      ? { success: output.success }
      : status.status === 'SUCCESS' || status.status === 'PENDING' || status.status === 'ENQUEUED'
        ? {}
        : { success: false }),
    ...(failure === undefined ? {} : { error: failure }),
  };
}

/** A program's first line of code (comments skipped), cut to 80 characters. */
function firstLine(code: string): string {
  const line =
    code.split('\n').find((text) => text.trim() !== '' && !text.trim().startsWith('//') && !text.trim().startsWith('import ')) ?? '';
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}

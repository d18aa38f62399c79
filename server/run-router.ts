import type { ApprovalRequest, BridgeEvent } from '../core/index.js';
import type { ServeStore } from '../store/index.js';
import { ApprovalRounds, DEFAULT_APPROVAL_WAIT_MS, type ApprovalAnswer } from './approval-rounds.js';
import { ResultPages } from './result-pages.js';
import { createSealer } from './sealed-state.js';
import { StoredRuns } from './stored-runs.js';
import { MAX_RESULT_CHARS } from './tool-text.js';

/** Routes bridge events and approval requests of one space to the run (and so the client) they belong to. */
export interface RunRouter {
  onEvent(event: BridgeEvent): void;
  approve(request: ApprovalRequest): Promise<ApprovalAnswer>;
}

/** What a run registers with the router: where its events go, and how its approvals are asked (or why they are denied). */
export interface RunHooks {
  onEvent(event: BridgeEvent): void;
  approve?(request: ApprovalRequest): Promise<ApprovalAnswer>;
  /** Why approvals are denied when `approve` is absent. */
  denial?: string;
}

export interface RunRouterOptions {
  /** Key of sealed approval states and result handles (32+ characters; default `$AGENT_SPACES_STATE_KEY`, else random per process). */
  stateKey?: string;
  /** How long a run of a 2026-07-28 client waits for the retry that answers its approvals. Default 10 min. */
  approvalWaitMs?: number;
  /** A durable runs' store: execute_code submits its program there, and a worker runs it (see `StoredRuns`). */
  store?: ServeStore;
}

export type SpaceRunRouter = RunRouter & {
  register(runId: string, hooks: RunHooks): () => void;
  /** Approval rounds of 2026-07-28 clients (runs that outlive one request). */
  readonly rounds: ApprovalRounds;
  /** Large results, readable in pages. */
  readonly pages: ResultPages;
  /** With a store: programs go there instead of running in this process. */
  readonly stored?: StoredRuns;
  /**
   * At most this many runs may wait for approval at once; a call of another run that needs approval
   * meanwhile is denied. A waiting run keeps its sandbox slot, so `serve --http` sets this to one less
   * than its slots: a client that never answers cannot stall every other caller's program.
   */
  limitWaitingRuns(max: number): void;
  /** Cancels the runs still waiting for approval. */
  close(): void;
};

/**
 * Creates the router a space is created with, before any MCP server exists. It holds what outlives one
 * request and is shared by every MCP server instance of the space: waiting runs and stored results.
 */
export function createRunRouter(options: RunRouterOptions = {}): SpaceRunRouter {
  const runs = new Map<string, RunHooks>();
  const sealer = createSealer(options.stateKey);
  const rounds = new ApprovalRounds(sealer, options.approvalWaitMs === undefined ? {} : { waitMs: options.approvalWaitMs });
  const pages = new ResultPages(sealer, { pageChars: MAX_RESULT_CHARS });
  const stored =
    options.store === undefined
      ? undefined
      : new StoredRuns(options.store, sealer, { waitMs: options.approvalWaitMs ?? DEFAULT_APPROVAL_WAIT_MS });
  /** Runs with a call waiting for approval, and how many calls each. */
  const waiting = new Map<string, number>();
  let maxWaitingRuns = Number.POSITIVE_INFINITY;
  return {
    rounds,
    pages,
    ...(stored ? { stored } : {}),
    limitWaitingRuns(max) {
      maxWaitingRuns = Math.max(1, max);
    },
    register(runId, hooks) {
      runs.set(runId, hooks);
      return () => runs.delete(runId);
    },
    onEvent(event) {
      if ('runId' in event && event.runId) runs.get(event.runId)?.onEvent(event);
    },
    async approve(request) {
      const hooks = request.runId ? runs.get(request.runId) : undefined;
      if (!hooks?.approve) {
        return {
          approved: false,
          reason:
            hooks?.denial ?? 'the MCP client cannot be asked (it does not support elicitation), so calls that require approval are denied',
        };
      }
      const runId = request.runId ?? '';
      if (!waiting.has(runId) && waiting.size >= maxWaitingRuns) {
        return {
          approved: false,
          reason: `too many runs are waiting for approval on this server (${waiting.size}); each keeps its sandbox slot, and one is always left for runs that need none. Retry once they are answered, or raise sandbox.workers`,
        };
      }
      waiting.set(runId, (waiting.get(runId) ?? 0) + 1);
      try {
        return await hooks.approve(request);
      } finally {
        const left = (waiting.get(runId) ?? 1) - 1;
        if (left > 0) waiting.set(runId, left);
        else waiting.delete(runId);
      }
    },
    close() {
      rounds.close();
    },
  };
}

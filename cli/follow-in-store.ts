import { describeStore, openStore, type DurableRunEvent } from '../store/index.js';
import { handleInterrupts } from './interrupt.js';
import { progress, UsageError } from './output.js';

/** The events only one kind of work has: a run's log lines, a task's planner progress. */
export type OwnEvent = Extract<DurableRunEvent, { kind: 'log' | 'planner' }>;

export interface FollowOptions {
  store: string;
  /** What is followed: a code run or a planner task (said in the progress lines). */
  kind: 'run' | 'task';
  /** `--approve all|none`: answers the approvals from here; absent, anyone decides them with `agent-spaces approvals`. */
  approve?: string;
  verbose?: boolean;
  /** Shows the events only this kind has: a run's log lines, a task's planner progress. */
  onOwnEvent(event: OwnEvent): void;
}

export interface FollowHooks {
  signal: AbortSignal;
  onEvent(event: DurableRunEvent): void;
  onNoWorker(id: string): void;
}

/**
 * Submits a run or a task to the store through `submit` and follows it from the command line: its
 * progress on stderr (takeovers, approvals, and what `onOwnEvent` shows), `--approve all|none`
 * deciding its approvals from here, Ctrl-C leaving it to run on in the store.
 */
export async function followInStore<Result>(options: FollowOptions, submit: (hooks: FollowHooks) => Promise<Result>): Promise<Result> {
  if (options.approve !== undefined && options.approve !== 'all' && options.approve !== 'none')
    throw new UsageError(`--approve takes "all" or "none" (got "${options.approve}")`);
  const approve = options.approve;
  // Opened only to decide approvals from here; closed when the run is left.
  const store = approve === undefined ? undefined : await openStore(options.store, { poolSize: 2 });
  const approvals = store?.approvals;
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  const handled = handleInterrupts();
  try {
    return await submit({
      signal: controller.signal,
      onNoWorker: (id) =>
        progress(`${options.kind} ${id} queued in ${describeStore(options.store)}; no worker is running — start \`agent-spaces worker\``),
      onEvent: (event) => {
        if (event.kind === 'log' || event.kind === 'planner') options.onOwnEvent(event);
        else reportProgress(event, options);
        if (event.kind === 'approval-required' && approvals !== undefined && approve !== undefined) {
          const approved = approve === 'all';
          // Decided already (by someone else, or its deadline): the decision stands, the event says which.
          void approvals
            .decide(event.approvalId, { approved, reason: `${approved ? 'approved' : 'denied'} by --approve ${approve}` })
            .catch(() => undefined);
        }
      },
    });
  } finally {
    process.off('SIGINT', stop);
    handled();
    await store?.close();
  }
}

/** The progress lines every run and task in a store prints: started, taken over, approvals. */
function reportProgress(event: Exclude<DurableRunEvent, OwnEvent>, options: Pick<FollowOptions, 'kind' | 'verbose'>): void {
  switch (event.kind) {
    case 'started':
      if (event.attempt > 1)
        progress(
          `${options.kind} taken over by worker ${event.executorId} (attempt ${event.attempt}; ${event.replayedCalls} finished calls and model replies answered from the store)`,
        );
      else if (options.verbose === true) progress(`${options.kind} started on worker ${event.executorId}`);
      return;
    case 'approval-required':
      progress(
        `[approval] ${event.capability}.${event.function}: ${event.message}\n  waiting: agent-spaces approvals approve ${event.approvalId}  (or deny)${event.deadline ? `; denied at ${event.deadline} unless decided` : ''}`,
      );
      return;
    case 'approval-decided':
      progress(`[approval] ${event.approvalId}: ${event.approved ? 'approved' : 'denied'}${event.reason ? ` (${event.reason})` : ''}`);
      return;
    case 'end':
      return;
  }
}

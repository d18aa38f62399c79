import { describeStore, DurableError, type StoredApproval, type StoreMonitor } from '../../store/index.js';
import { errorMessage } from '../../core/index.js';
import type { EventHub, PendingApprovalView } from './studio-events.js';
import { StudioError } from './studio-error.js';

/**
 * The store's pending approvals in the studio's inbox: those of every durable run (submitted by
 * `agent-spaces run --store`, serve, another studio, the library), decided here through the store.
 * The inbox follows the store: an approval that appears or is decided elsewhere (the CLI, a
 * deadline) becomes an `approval-required` / `approval-decided` event for the open pages.
 */
export interface StoreInbox {
  /** The store's address without its password, for the page. */
  readonly store: string;
  /** Pending approvals, read from the store now. */
  list(): Promise<PendingApprovalView[]>;
  /** Whether the id may name a stored approval (they are short hexadecimal ids). */
  owns(id: string): boolean;
  /** Decides it in the store; a 404 StudioError when it is not pending there (decided elsewhere, or unknown). */
  decide(id: string, approved: boolean, reason?: string): Promise<void>;
  /** The last failure to read the store, while it lasts (the page shows it). */
  readonly problem: string | undefined;
  /** Looks at the store again soon (a run of this studio reported an approval). */
  refresh(): void;
}

const STORED_ID = /^[0-9a-f]{1,20}$/;
/** Least time between two looks at the store's approvals woken by its notifications. */
const LOOK_GAP_MS = 250;

export function createStoreInbox(url: string, monitor: StoreMonitor, events: EventHub, redact: <T>(value: T) => T): StoreInbox {
  const store = describeStore(url);
  /** The pending approvals the open pages were told of. */
  let known = new Map<string, PendingApprovalView>();
  let problem: string | undefined;

  const view = (approval: StoredApproval): PendingApprovalView => ({
    id: approval.id,
    runId: approval.runId,
    origin: { kind: 'store', store },
    capability: approval.capability,
    function: approval.function,
    params: redact(approval.params),
    message: redact(approval.message),
    timestamp: approval.createdAt,
    ...(approval.deadline ? { deadline: approval.deadline } : {}),
  });

  /** Reads the pending approvals and tells the pages what changed since the last look. */
  async function read(): Promise<PendingApprovalView[]> {
    let pending: StoredApproval[];
    try {
      pending = await monitor.pendingApprovals();
      problem = undefined;
    } catch (error) {
      problem = `the store ${store} cannot be read: ${errorMessage(error)}`;
      return [...known.values()];
    }
    const current = new Map(pending.map((approval) => [approval.id, view(approval)]));
    const before = known;
    known = current;
    for (const [id, approval] of current) if (!before.has(id)) events.publish({ type: 'approval-required', approval });
    for (const id of before.keys()) if (!current.has(id)) await announceDecided(id);
    return [...current.values()];
  }

  async function announceDecided(id: string): Promise<void> {
    const decided = await monitor.approval(id).catch(() => undefined);
    const reason = decided?.reason ? redact(decided.reason) : undefined;
    events.publish({ type: 'approval-decided', id, approved: decided?.status === 'approved', ...(reason ? { reason } : {}) });
  }

  // One look at a time, in order: an older answer never overwrites a newer one.
  let queue: Promise<unknown> = Promise.resolve();
  const look = (): Promise<PendingApprovalView[]> => {
    const next = queue.then(read);
    queue = next.catch(() => undefined);
    return next;
  };
  // Every run event of the store wakes the inbox (a new approval comes with one): wake-ups while a
  // look is going ask for one more look, not one each, and not sooner than LOOK_GAP_MS after it
  // (a store busy with log lines costs a few small queries a second, not one per line).
  let waiting = false;
  let again = false;
  const refresh = (): void => {
    if (waiting) {
      again = true;
      return;
    }
    waiting = true;
    void look().finally(() => {
      const next = setTimeout(() => {
        waiting = false;
        if (again) {
          again = false;
          refresh();
        }
      }, LOOK_GAP_MS);
      next.unref();
    });
  };
  monitor.watch(refresh);
  refresh();

  return {
    store,
    get problem() {
      return problem;
    },
    list: look,
    owns: (id) => STORED_ID.test(id),
    async decide(id, approved, reason) {
      try {
        await monitor.decide(id, { approved, reason: reason ?? `${approved ? 'approved' : 'denied'} in agent-spaces studio` });
      } catch (error) {
        if (error instanceof DurableError && (error.code === 'APPROVAL_NOT_FOUND' || error.code === 'APPROVAL_DECIDED')) {
          throw new StudioError('STUDIO_NOT_FOUND', error.message, { cause: error });
        }
        throw error;
      }
      refresh();
    },
    refresh,
  };
}

import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalHandler } from '../../core/index.js';
import type { EventHub, PendingApprovalView } from './studio-events.js';

interface Pending extends PendingApprovalView {
  decide(decision: ApprovalDecision): void;
}

/** Calls that need approval wait here until someone decides in the inbox (or the studio closes). */
export interface ApprovalInbox {
  handler: ApprovalHandler;
  list(): PendingApprovalView[];
  /** False when no such call is waiting (decided already, or never asked). */
  decide(id: string, approved: boolean, reason?: string): boolean;
  /** Denies everything still waiting: a closing studio leaves no call hanging. */
  close(): void;
}

export function createApprovalInbox(events: EventHub, redact: <T>(value: T) => T): ApprovalInbox {
  const pending = new Map<string, Pending>();
  const view = ({ decide: _decide, ...shown }: Pending): PendingApprovalView => shown;
  return {
    handler: (request) =>
      new Promise<ApprovalDecision>((resolve) => {
        const id = randomUUID();
        const entry: Pending = {
          id,
          ...(request.runId ? { runId: request.runId } : {}),
          capability: request.capability,
          function: request.function,
          params: redact(request.params),
          message: request.message,
          timestamp: request.timestamp,
          decide: resolve,
        };
        pending.set(id, entry);
        events.publish({ type: 'approval-required', approval: view(entry) });
      }),
    list: () => [...pending.values()].map(view),
    decide(id, approved, reason) {
      const entry = pending.get(id);
      if (!entry) return false;
      pending.delete(id);
      entry.decide(reason ? { approved, reason } : approved);
      events.publish({ type: 'approval-decided', id, approved, ...(reason ? { reason } : {}) });
      return true;
    },
    close() {
      for (const id of [...pending.keys()]) this.decide(id, false, 'the studio closed');
    },
  };
}

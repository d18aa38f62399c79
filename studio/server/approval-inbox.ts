import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../../core/index.js';
import type { ApprovalOrigin, AttachedOrigin, EventHub, PendingApprovalView } from './studio-events.js';

interface Pending extends PendingApprovalView {
  decide(decision: ApprovalDecision): void;
}

/** Most calls of attached processes (`run`, `task`, `serve --studio`) waiting at once; past it, new ones are refused. */
export const MAX_EXTERNAL_APPROVALS = 100;

/** An attached process's call, once in the inbox: its id, and the decision when someone makes it. */
export interface ExternalApproval {
  id: string;
  decision: Promise<{ approved: boolean; reason?: string }>;
}

/** Calls that need approval wait here until someone decides in the inbox (or the studio closes). */
export interface ApprovalInbox {
  /** The handler of the studio's own space (playground runs, the function tester). */
  handler: ApprovalHandler;
  /**
   * A call of an attached process: undefined when `MAX_EXTERNAL_APPROVALS` are waiting already.
   * Its arguments arrive redacted by the process that asks (and are redacted here again).
   */
  askExternal(request: ApprovalRequest, origin: AttachedOrigin): ExternalApproval | undefined;
  /** Takes a call out of the inbox without a decision (its process went away or its run ended). */
  withdraw(id: string, reason: string): void;
  list(): PendingApprovalView[];
  /** False when no such call is waiting (decided already, or never asked). */
  decide(id: string, approved: boolean, reason?: string): boolean;
  /** Denies everything still waiting: a closing studio leaves no call hanging. */
  close(): void;
}

export function createApprovalInbox(events: EventHub, redact: <T>(value: T) => T): ApprovalInbox {
  const pending = new Map<string, Pending>();
  const view = ({ decide: _decide, ...shown }: Pending): PendingApprovalView => shown;
  const externalCount = (): number => [...pending.values()].filter((entry) => entry.origin.kind !== 'studio').length;

  function enqueue(request: ApprovalRequest, origin: ApprovalOrigin): { id: string; decision: Promise<ApprovalDecision> } {
    const id = randomUUID();
    const decision = new Promise<ApprovalDecision>((resolve) => {
      const entry: Pending = {
        id,
        ...(request.runId ? { runId: request.runId } : {}),
        origin,
        capability: request.capability,
        function: request.function,
        params: redact(request.params),
        message: request.message,
        timestamp: request.timestamp,
        decide: resolve,
      };
      pending.set(id, entry);
      events.publish({ type: 'approval-required', approval: view(entry) });
    });
    return { id, decision };
  }

  return {
    handler: (request) => enqueue(request, { kind: 'studio' }).decision,
    askExternal(request, origin) {
      if (externalCount() >= MAX_EXTERNAL_APPROVALS) return undefined;
      const { id, decision } = enqueue(request, origin);
      return { id, decision: decision.then((answer) => (typeof answer === 'boolean' ? { approved: answer } : answer)) };
    },
    withdraw(id, reason) {
      const entry = pending.get(id);
      if (!entry) return;
      pending.delete(id);
      entry.decide({ approved: false, reason });
      events.publish({ type: 'approval-decided', id, approved: false, reason });
    },
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

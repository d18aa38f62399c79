import type { ApprovalHandler } from '../core/index.js';
import { requestStoredApproval, type ApprovalWaiter } from '../store/internals.js';
import type { CallKey } from './call-key.js';
import type { WorkerState } from './worker-state.js';

/**
 * The approval handler of a worker's space: an approval of a run this worker executes is stored (the
 * CLI, the studio or serve decide it), announced in the run's events, and waited for in memory.
 */
export function createWorkerApprovalHandler(state: WorkerState, waiter: ApprovalWaiter): ApprovalHandler {
  return async (request) => {
    const run = request.runId === undefined ? undefined : state.runOf(request.runId);
    if (run === undefined || request.runId === undefined)
      return { approved: false, reason: 'a durable worker decides approvals only for the runs it executes' };
    const key: CallKey = run.countApproval(request.capability, request.function, request.params);
    const runId = run.id;
    // A call the journal will not perform (an earlier attempt's call is in flight: its outcome is
    // unknown) is not put to a person: the journal ends the run with OUTCOME_UNKNOWN. (Only the config
    // can say here that a function is idempotent; the journal alone knows its annotations.)
    const idempotent = state.configSaysIdempotent(request.capability, request.function);
    const refused = run.journal.refuses(request.capability, request.function, request.params, idempotent);
    if (refused !== undefined) return { approved: false, reason: refused.message };
    const stored = await requestStoredApproval(state.storeWriter, {
      runId,
      callKey: key.key,
      capability: request.capability,
      function: request.function,
      params: request.params,
      message: request.message,
      ...(state.durable.approvalDeadlineMs === undefined ? {} : { deadlineMs: state.durable.approvalDeadlineMs }),
    });
    if (stored.status !== 'pending') return { approved: stored.status === 'approved', ...(stored.reason ? { reason: stored.reason } : {}) };
    await run.append({
      kind: 'approval-required',
      approvalId: stored.id,
      capability: stored.capability,
      function: stored.function,
      message: stored.message,
      ...(stored.deadline ? { deadline: stored.deadline } : {}),
    });
    state.notice(`run ${runId}: waiting for approval ${stored.id} (${stored.capability}.${stored.function})`);
    // What the run did so far is in the store before it waits (maybe for hours).
    const flushed = await run.journal.flush().then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    if (flushed !== undefined) return { approved: false, reason: flushed };
    const decided = await waiter.wait(stored);
    await run.append({
      kind: 'approval-decided',
      approvalId: decided.id,
      approved: decided.status === 'approved',
      ...(decided.reason ? { reason: decided.reason } : {}),
    });
    return { approved: decided.status === 'approved', ...(decided.reason ? { reason: decided.reason } : {}) };
  };
}

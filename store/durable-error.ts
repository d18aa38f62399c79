import { AgentSpacesError } from '../core/index.js';

/**
 * Codes of durable runs' own failures:
 * - `REPLAY_DIVERGED`: a run taken over from a dead worker did not make the calls its journal holds.
 * - `OUTCOME_UNKNOWN`: a call was in flight when its worker died and may not be performed again.
 * - `STORE_UNAVAILABLE`: the store (PostgreSQL) cannot be reached or answered with an error.
 * - `APPROVAL_NOT_FOUND`: no stored approval has the id given (or a prefix names several).
 * - `APPROVAL_DECIDED`: the stored approval was decided already; the decision stands.
 * - `WORKER_ID_IN_USE`: a live worker already holds this executor id in the store (two workers with
 *   one id would take each other's runs for their own).
 * - `NO_LIVE_WORKER`: a submitter asked to queue a run only if a worker is alive, and none is (nothing was queued).
 */
export type DurableErrorCode =
  | 'REPLAY_DIVERGED'
  | 'OUTCOME_UNKNOWN'
  | 'STORE_UNAVAILABLE'
  | 'APPROVAL_NOT_FOUND'
  | 'APPROVAL_DECIDED'
  | 'WORKER_ID_IN_USE'
  | 'NO_LIVE_WORKER';

export class DurableError extends AgentSpacesError {
  override readonly name = 'DurableError';
  declare readonly code: DurableErrorCode;

  constructor(code: DurableErrorCode, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(code, message, options);
  }
}

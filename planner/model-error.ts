import { AgentSpacesError } from '../core/index.js';

export type ModelErrorCode = 'MODEL_UNREACHABLE' | 'MODEL_AUTH_FAILED' | 'MODEL_REQUEST_FAILED' | 'MODEL_REPLAY_EXHAUSTED';

/** The model endpoint could not be used: unreachable, key refused, a request failed, a replay ran out. */
export class ModelError extends AgentSpacesError {
  override readonly name = 'ModelError';
  declare readonly code: ModelErrorCode;

  constructor(code: ModelErrorCode, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(code, message, options);
  }
}

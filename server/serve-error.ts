import { AgentSpacesError } from '../core/index.js';

/**
 * Why `serve` refuses to start: `SERVE_UNSAFE_BIND` (an address other than loopback without a token),
 * `SERVE_IN_PROCESS_REFUSED` (in-process isolation asked for code of remote callers), `SERVE_BIND_FAILED`
 * (the host name does not resolve).
 */
export type ServeErrorCode = 'SERVE_UNSAFE_BIND' | 'SERVE_IN_PROCESS_REFUSED' | 'SERVE_BIND_FAILED';

/** `serve` refused a configuration that would expose the space; the message says what to change. */
export class ServeError extends AgentSpacesError {
  override readonly name = 'ServeError';
  declare readonly code: ServeErrorCode;

  constructor(code: ServeErrorCode, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(code, message, options);
  }
}

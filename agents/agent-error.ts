import { AgentSpacesError, type ConfigIssue } from '../core/index.js';

/**
 * An agent directory is invalid or an agent could not run. `issues` lists every problem of a load
 * with its path (`tsagent.json: metadata.tools.0.prompt: ...`). Messages never carry provider keys.
 */
export class AgentError extends AgentSpacesError {
  override readonly name = 'AgentError';
  readonly issues: ConfigIssue[];

  constructor(code: string, message: string, options: { issues?: ConfigIssue[]; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(code, message, { details: { ...options.details, ...(options.issues ? { issues: options.issues } : {}) }, cause: options.cause });
    this.issues = options.issues ?? [];
  }
}

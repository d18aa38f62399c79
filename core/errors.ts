/**
 * Base class of every error Agent Spaces throws on purpose. `code` is stable and machine-readable;
 * `details` carries structured context (paths, names, limits).
 */
export class AgentSpacesError extends Error {
  override readonly name: string = 'AgentSpacesError';
  readonly code: string;
  readonly details?: Record<string, unknown>;

  constructor(code: string, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.details !== undefined) this.details = options.details;
  }
}

export interface ConfigIssue {
  /** Dotted path into the config, e.g. `mcpServers.github.url`. */
  path: string;
  message: string;
}

/** The configuration is invalid; `issues` lists every problem with its path. */
export class ConfigError extends AgentSpacesError {
  override readonly name = 'ConfigError';
  readonly issues: ConfigIssue[];

  constructor(message: string, issues: ConfigIssue[] = [], options: { cause?: unknown; file?: string } = {}) {
    super('CONFIG_INVALID', message, { details: { issues, file: options.file }, cause: options.cause });
    this.issues = issues;
  }
}

/** A capability source could not be compiled. */
export class CompileError extends AgentSpacesError {
  override readonly name = 'CompileError';
}

/** The sandbox itself failed (not the model's code): a worker died, an isolate could not start. */
export class SandboxError extends AgentSpacesError {
  override readonly name = 'SandboxError';
}

/** A run passed its wall-clock or CPU limit. */
export class SandboxTimeoutError extends AgentSpacesError {
  override readonly name = 'SandboxTimeoutError';
}

/** Codes a capability call can fail with; they cross the sandbox boundary as `error.data.code`. */
export type ToolCallErrorCode =
  | 'UNKNOWN_CAPABILITY'
  | 'UNKNOWN_FUNCTION'
  | 'INVALID_ARGUMENTS'
  | 'APPROVAL_DENIED'
  | 'RATE_LIMITED'
  | 'CALL_LIMIT_EXCEEDED'
  | 'TOOL_FAILED'
  | 'TOOL_ERROR_RESULT'
  | 'INVALID_RESULT'
  | 'RESULT_TOO_LARGE'
  | 'TIMEOUT'
  | 'CANCELLED'
  | 'SERVER_UNAVAILABLE'
  | 'SCHEMA_CHANGED'
  | 'FORBIDDEN'
  /** The run may not call this function (the planner's, an agent's or the server's narrowing). */
  | 'ACCESS_DENIED'
  /** The function does not allow this kind of caller (`callers: 'code' | 'direct'`). */
  | 'CALLER_NOT_ALLOWED';

/**
 * Marks a ToolCallError across copies of this package: a tool module loaded from another copy (the
 * package installed twice, or its sources beside its dist) throws errors of another class, which the
 * bridge must still pass on with their code instead of turning them into TOOL_FAILED.
 */
const TOOL_CALL_ERROR = Symbol.for('agent-spaces.ToolCallError');

/** A capability call failed; the message names the capability, function and what to do. */
export class ToolCallError extends AgentSpacesError {
  override readonly name = 'ToolCallError';

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== ToolCallError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_CALL_ERROR] === true;
  }

  declare readonly code: ToolCallErrorCode;
  readonly capability: string;
  readonly function: string;

  constructor(
    code: ToolCallErrorCode,
    message: string,
    target: { capability: string; function: string },
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, options);
    this.capability = target.capability;
    this.function = target.function;
    Object.defineProperty(this, TOOL_CALL_ERROR, { value: true });
  }
}

/** The message of any thrown value, without assuming it is an Error. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

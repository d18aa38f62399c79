/**
 * The contract between the runtime and the bridge: the parameters of a capability call, the context
 * the host knows about its run, and the error data that crosses back into the sandbox. Both sides
 * import this file; neither imports the other. (The frames between host and sandbox worker are
 * runtime/worker-protocol.ts.)
 */
import type { CallerKind } from './callers.js';
import { AgentSpacesError, ToolCallError, errorMessage } from './errors.js';

/** `value`: what the declaration promises. `full`: the whole backend result (MCP content blocks). */
export type ResultMode = 'value' | 'full';

export interface CapabilityCallParams {
  /** Module name, e.g. `train-schedule`. */
  capability: string;
  /** The function's JavaScript name, e.g. `getSchedule`. */
  function: string;
  args: unknown;
  resultMode?: ResultMode;
}

export interface WireErrorData {
  /** A stable string code (`INVALID_ARGUMENTS`, `APPROVAL_DENIED`, …). */
  code: string;
  capability?: string;
  function?: string;
  details?: unknown;
}

export interface WireError {
  code: number;
  message: string;
  data?: WireErrorData;
}

/**
 * A call's result already serialized as JSON text by the host. The runtime sends the text on as it
 * is: one serialization per hop. Its UTF-8 size is counted only where something needs it.
 */
export class EncodedJson {
  #bytes: number | undefined;

  constructor(readonly text: string) {}

  /** UTF-8 length of `text`, counted on first use (a pass over the text). */
  get bytes(): number {
    this.#bytes ??= Buffer.byteLength(this.text, 'utf8');
    return this.#bytes;
  }
}

/**
 * Which functions a run may call, as `module.function` ids (e.g. `train-schedule.getSchedule`). The
 * bridge refuses every other call, however the program made it.
 */
export interface CallAccess {
  allows(capability: string, fn: string): boolean;
  /** Says, for refusals, who narrowed the run (e.g. "this task"). */
  readonly scope: string;
}

/** Access for the functions in `ids` (`module.function`; `module.*` allows a whole module). */
export function accessFromIds(ids: Iterable<string>, scope: string): CallAccess {
  const allowed = new Set(ids);
  return { scope, allows: (capability, fn) => allowed.has(`${capability}.${fn}`) || allowed.has(`${capability}.*`) };
}

/** What the host knows about the run a call comes from. */
export interface CallContext {
  runId: string;
  /**
   * Who makes the call, set by the host: `code` for a sandboxed program's call, `direct` for a direct
   * call. The bridge refuses a function's call by a caller it does not allow. Absent: `Bridge.handle`
   * takes it for direct, `Bridge.handleEncoded` (the runtime's handler) for code.
   */
  caller?: CallerKind;
  /** The W3C `traceparent` of the span the call belongs to (a code run, a planner step, a caller's request). */
  traceparent?: string;
  /** The functions this run may call; absent: every function of the space. */
  access?: CallAccess;
  /**
   * The session-state scope of the run (`@capabilities/session`), set by the host: an explicit session
   * id, an MCP session, a planner task or an agent session. Never chosen by the program. Absent: none.
   */
  session?: string;
  /** Aborted when the run ends (timeout, cancel): in-flight work should stop. */
  signal: AbortSignal;
  /**
   * Stops the run's wall clock while the host waits on a person (an approval), so their thinking time
   * is not the program's; call the returned function to start it again. Absent where the runtime has none.
   */
  holdDeadline?: () => () => void;
}

/**
 * The host side of the channel: performs one call, resolving to its (JSON-serialisable) value or
 * rejecting with a `ToolCallError` (any other error is reported as `TOOL_FAILED`).
 */
export type CapabilityCallHandler = (params: CapabilityCallParams, context: CallContext) => Promise<unknown>;

/** JSON-RPC error codes used on the wire. */
export const WIRE_ERROR_CODES = {
  invalidParams: -32602,
  internal: -32603,
  /** Application errors: the string code is in `data.code`. */
  toolCall: -32000,
} as const;

/** Turns any error into the data that crosses the boundary. */
export function toWireError(error: unknown): WireError {
  if (error instanceof ToolCallError) {
    return {
      code: error.code === 'INVALID_ARGUMENTS' ? WIRE_ERROR_CODES.invalidParams : WIRE_ERROR_CODES.toolCall,
      message: error.message,
      data: { code: error.code, capability: error.capability, function: error.function, details: error.details },
    };
  }
  if (error instanceof AgentSpacesError) {
    return { code: WIRE_ERROR_CODES.toolCall, message: error.message, data: { code: error.code, details: error.details } };
  }
  return { code: WIRE_ERROR_CODES.internal, message: errorMessage(error), data: { code: 'TOOL_FAILED' } };
}

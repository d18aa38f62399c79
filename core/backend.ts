import type { CapabilitySpec, FunctionSpec } from './manifest.js';
import type { CallContext, ResultMode } from './protocol.js';

export interface CallProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** One validated, approved call, handed to the backend that performs it. */
export interface BackendCall {
  capability: CapabilitySpec;
  function: FunctionSpec;
  /** Arguments, already validated against `function.inputSchema`. */
  args: Record<string, unknown>;
  resultMode: ResultMode;
  callId: string;
  context: CallContext;
  /** The W3C `traceparent` of this call's span, when traced: backends pass it on (MCP `_meta`, an HTTP header). */
  traceparent?: string;
  /**
   * Says the call was performed and how it was answered (`DELETE /pets/1 answered 204`): quoted when
   * its result is then refused, so nobody takes a side effect that happened for one that did not.
   */
  onPerformed?: (outcome: string) => void;
  /** Reports progress of a long call (MCP progress notifications). */
  onProgress?: (progress: CallProgress) => void;
  /**
   * Asks the person or the approval handler for what the call's server needs to go on (an MCP
   * server's elicitation, or its `input_required` result), through the bridge's approvals: events,
   * the run's clock held, no handler = denied. Resolves when approved (with the values the handler
   * gave, if any); rejects with `APPROVAL_DENIED` when denied and `CANCELLED` when the run ends.
   */
  requestInput?: (request: InputRequest) => Promise<InputAnswer>;
}

/** What a server asks for in the middle of a call. */
export interface InputRequest {
  /** For the person deciding: who asks, and the server's own question. */
  message: string;
  /** The values the server wants (a flat JSON Schema object), when it wants any. */
  requestedSchema?: Record<string, unknown>;
}

/** An approved {@link InputRequest}: the values the approval handler filled in, if any. */
export interface InputAnswer {
  content?: Record<string, unknown>;
}

/**
 * Performs the calls of the capabilities it serves: in-process handlers (`defineTool`, std), an MCP
 * client pool, agent sessions. Resolves to the call's value as `function.resultKind` and `resultMode`
 * say; rejects with a `ToolCallError` naming what went wrong.
 */
export interface Backend {
  call(call: BackendCall): Promise<unknown>;
  close(): Promise<void>;
  /**
   * The approval prompt for a call, when the backend can compute one (a `defineTool` function whose
   * `approvalMessage` is a function). `undefined`: the bridge uses the `{param}` template or a default.
   */
  approvalMessage?(call: BackendCall): string | undefined;
  /**
   * A hint that calls of `capability` are coming (a program that imports it is starting): begin what
   * its first call would wait for, such as importing a tool file, so that it overlaps the run's start
   * (its type-check, the sandbox). Never throws and returns at once; a failure is the first call's.
   */
  prepare?(capability: CapabilitySpec): void;
}

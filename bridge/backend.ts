import type { CallContext, CapabilitySpec, FunctionSpec, ResultMode } from '../core/index.js';

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
  /** Reports progress of a long call (MCP progress notifications). */
  onProgress?: (progress: CallProgress) => void;
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
}

/** Events of the bridge, one union for every listener (CLI progress, traces, planner telemetry). */
export type BridgeEvent = ToolCallStartEvent | ToolCallEndEvent | ApprovalRequiredEvent | ApprovalDecidedEvent | ResultDriftEvent;

export interface ToolCallStartEvent {
  type: 'tool-call-start';
  callId: string;
  runId?: string;
  capability: string;
  function: string;
  /** Arguments with secrets redacted. */
  args: unknown;
  timestamp: string;
}

export interface ToolCallEndEvent {
  type: 'tool-call-end';
  callId: string;
  runId?: string;
  capability: string;
  function: string;
  ok: boolean;
  durationMs: number;
  /** Size of the JSON result in bytes (0 on error). */
  sizeBytes: number;
  error?: { code: string; message: string };
  timestamp: string;
}

/**
 * A result of a function whose type was inferred from earlier results (`FunctionSpec.inferredResult`)
 * does not match that type. The call still succeeds with the value; the stored type is widened to
 * take it in, so the next build declares it.
 */
export interface ResultDriftEvent {
  type: 'result-drift';
  callId: string;
  runId?: string;
  capability: string;
  function: string;
  /** What differs (at most a few issues, values redacted), or that the text was not JSON any more. */
  issues: { path: string; message: string }[];
  /** One line for people: what drifted and what to do. */
  message: string;
  timestamp: string;
}

export interface ApprovalRequest {
  /** The run the call comes from, so a host serving several clients can ask the right one. */
  runId?: string;
  /** The call's id in the bridge's events (`approval-required`, `approval-decided`), when the bridge asks. */
  callId?: string;
  capability: string;
  function: string;
  params: unknown;
  message: string;
  /**
   * Present when a tool's server asks for values in the middle of the call (an MCP elicitation): what
   * it asks for, as a flat JSON Schema object. A decision may fill them in (`content`).
   */
  requestedSchema?: Record<string, unknown>;
  timestamp: string;
}

export interface ApprovalRequiredEvent extends ApprovalRequest {
  type: 'approval-required';
  callId: string;
}

export interface ApprovalDecidedEvent {
  type: 'approval-decided';
  callId: string;
  capability: string;
  function: string;
  approved: boolean;
  reason?: string;
  timestamp: string;
}

export type ApprovalDecision = boolean | { approved: boolean; reason?: string; content?: Record<string, unknown> };

/** Decides whether a call that requires approval may go on. The call waits while it runs. */
export type ApprovalHandler = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

export type BridgeEventListener = (event: BridgeEvent) => void;

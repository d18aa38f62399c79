/** Events of the bridge, one union for every listener (CLI progress, traces, planner telemetry). */
export type BridgeEvent =
  | ToolCallStartEvent
  | ToolCallEndEvent
  | ApprovalRequiredEvent
  | ApprovalDecidedEvent;

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

export interface ApprovalRequest {
  /** The run the call comes from, so a host serving several clients can ask the right one. */
  runId?: string;
  /** The call's id in the bridge's events (`approval-required`, `approval-decided`), when the bridge asks. */
  callId?: string;
  capability: string;
  function: string;
  params: unknown;
  message: string;
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

export type ApprovalDecision = boolean | { approved: boolean; reason?: string };

/** Decides whether a call that requires approval may go on. The call waits while it runs. */
export type ApprovalHandler = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

export type BridgeEventListener = (event: BridgeEvent) => void;

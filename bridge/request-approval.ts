import { ToolCallError, errorMessage, untilAborted } from '../core/index.js';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest, BridgeEvent } from '../core/index.js';
import { escapeControlCharacters } from './approval-message.js';

export interface ApprovalAsk {
  handler: ApprovalHandler | undefined;
  request: ApprovalRequest;
  callId: string;
  /** The tool's original name, for messages. */
  toolName: string;
  signal: AbortSignal;
  /** From the call's context: stops the run's wall clock while the handler decides. */
  holdDeadline?: () => () => void;
  emit: (event: BridgeEvent) => void;
  /** What events (traces, logs) show of the arguments; the handler always gets them exact. */
  redactForEvents: <T>(value: T) => T;
}

/**
 * Asks the approval handler about one call and waits for its answer (other calls go on meanwhile).
 * Resolves when approved (with the values the decision filled in, for a request that asks for some);
 * rejects with `APPROVAL_DENIED` when denied, when there is no handler (headless), or when the handler
 * throws, and with `CANCELLED` when the run ends while waiting.
 */
export async function requestApproval(ask: ApprovalAsk): Promise<{ content?: Record<string, unknown> }> {
  const { callId } = ask;
  // Whoever shows the message (a terminal, a web page, an MCP client) shows it as written: a message a
  // tool computed from the program's arguments cannot carry a CR, an escape sequence or a bidi override.
  const request: ApprovalRequest = { ...ask.request, callId, message: escapeControlCharacters(ask.request.message, { keepLayout: false }) };
  const target = { capability: request.capability, function: request.function };
  const subject = `tool "${ask.toolName}" of capability "${request.capability}"`;
  // A call whose run already ended (one the program did not await, held for the type-check's verdict)
  // asks nobody: the answer could change nothing, and a person would decide about a run that is over.
  if (ask.signal.aborted) throw cancelled();
  // The handler (the person deciding) sees the message as it is; events, terminals and the store see it redacted.
  ask.emit({
    type: 'approval-required',
    callId,
    ...request,
    message: ask.redactForEvents(request.message),
    params: ask.redactForEvents(request.params),
  });

  const decided = (approved: boolean, reason?: string): void =>
    ask.emit({
      type: 'approval-decided',
      callId,
      capability: request.capability,
      function: request.function,
      approved,
      ...(reason === undefined ? {} : { reason }),
      timestamp: new Date().toISOString(),
    });

  if (ask.handler === undefined) {
    const reason = 'no approval handler is configured (headless run)';
    decided(false, reason);
    throw new ToolCallError(
      'APPROVAL_DENIED',
      `${subject} requires approval, but ${reason}, so the call was denied. Pass an approvalHandler to createBridge (or --approve in the CLI) to allow such calls.`,
      target,
      { details: { reason } },
    );
  }

  let decision: { approved: boolean; reason?: string; content?: Record<string, unknown> };
  // A person's time to decide is not the program's: the run's clock stops while the handler decides.
  const release = ask.holdDeadline?.();
  try {
    decision = normalizeDecision(await untilAborted(Promise.resolve(ask.handler(request)), ask.signal, cancelled));
  } catch (error) {
    if (error instanceof ToolCallError) {
      decided(false, error.message);
      throw error;
    }
    const reason = `the approval handler failed: ${errorMessage(error)}`;
    decided(false, reason);
    throw new ToolCallError('APPROVAL_DENIED', `${subject} was denied: ${reason}`, target, { details: { reason }, cause: error });
  } finally {
    release?.();
  }

  decided(decision.approved, decision.reason);
  if (!decision.approved) {
    const reason = decision.reason ?? 'denied by the approval handler';
    throw new ToolCallError('APPROVAL_DENIED', `${subject} was denied: ${reason}`, target, { details: { reason } });
  }
  return decision.content === undefined ? {} : { content: decision.content };

  function cancelled(): ToolCallError {
    return new ToolCallError('CANCELLED', `${subject} was cancelled while waiting for approval: the run ended`, target);
  }
}

function normalizeDecision(decision: ApprovalDecision): { approved: boolean; reason?: string; content?: Record<string, unknown> } {
  if (typeof decision === 'boolean') return { approved: decision };
  const content =
    typeof decision.content === 'object' && decision.content !== null && !Array.isArray(decision.content) ? decision.content : undefined;
  return {
    approved: decision.approved === true,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    ...(content === undefined ? {} : { content }),
  };
}

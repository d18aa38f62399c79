import type { ServerContext } from '@modelcontextprotocol/server';
import { formatArguments } from '../bridge/index.js';
import type { ApprovalRequest } from '../core/index.js';
import type { ApprovalAnswer } from './approval-rounds.js';

/** The form an approval asks the client to fill: one yes/no question. */
export const approveSchema = () => ({
  type: 'object' as const,
  properties: { approve: { type: 'boolean' as const, title: 'Approve this call?' } },
  required: ['approve'],
});

/** What the client shows for an approval: the call's message, its function, and its exact arguments. */
export function approvalMessage(request: Pick<ApprovalRequest, 'message' | 'capability' | 'function' | 'params'>): string {
  // The exact arguments, always: a tool's message may leave one out or describe it loosely.
  return `${request.message}\n(${request.capability}.${request.function})\narguments: ${formatArguments(request.params)}`;
}

/** Asks a 2025-11-25 session's client about one approval with an elicitation request, and waits for its answer. */
export async function elicitApproval(ctx: ServerContext, request: ApprovalRequest): Promise<ApprovalAnswer> {
  const reply = await ctx.mcpReq.elicitInput(
    { message: approvalMessage(request), requestedSchema: approveSchema() },
    { signal: ctx.mcpReq.signal },
  );
  return (
    decisionOf(reply) ?? { approved: false, reason: 'the client answered the approval with something that is not an elicitation result' }
  );
}

/** The decision an elicitation result carries (`undefined` when it is not one). */
export function decisionOf(reply: unknown): ApprovalAnswer | undefined {
  if (typeof reply !== 'object' || reply === null || !('action' in reply)) return undefined;
  const { action, content } = reply as { action: unknown; content?: { approve?: unknown } };
  const approved = action === 'accept' && content?.approve === true;
  return {
    approved,
    reason: approved
      ? 'approved by the user'
      : `the user ${action === 'accept' ? 'did not approve' : action === 'decline' ? 'declined' : 'cancelled'}`,
  };
}

import type { ElicitResult } from '@modelcontextprotocol/client';
import { ToolCallError } from '../../core/index.js';
import type { BackendCall } from '../../core/index.js';
import type { McpElicitation } from './connect.js';
import { mapStrings } from '../map-strings.js';

/** What an approved input request answers (`InputAnswer` of core/backend.ts). */
type InputAnswer = Awaited<ReturnType<NonNullable<BackendCall['requestInput']>>>;

/** How many `input_required` rounds one call may take before it is given up (a server that never stops asking). */
export const MAX_INPUT_ROUNDS = 10;

export interface AskingCall {
  call: BackendCall;
  server: string;
  tool: string;
  /** Redacts the server's text (it may quote the server's secrets) before a person or an event sees it. */
  redact: (text: string) => string;
}

/** An `input_required` result (MCP 2026-07-28): what the server needs before it answers the call. */
export interface InputRequired {
  resultType: 'input_required';
  inputRequests?: Record<string, unknown>;
  requestState?: string;
}

export function isInputRequired(result: unknown): result is InputRequired {
  return typeof result === 'object' && result !== null && (result as { resultType?: unknown }).resultType === 'input_required';
}

/**
 * Answers every request of an `input_required` result through the bridge's approvals, one after the
 * other: `{ key: ElicitResult }` for the retry. Only form elicitations can be answered (the client
 * declares nothing else); anything else fails the call, naming what the server asked for. A denial
 * rejects with `APPROVAL_DENIED` and the call is not retried.
 */
export async function answerInputRequests(asking: AskingCall, requests: Record<string, unknown>): Promise<Record<string, ElicitResult>> {
  const responses: Record<string, ElicitResult> = {};
  for (const [key, request] of Object.entries(requests)) {
    const elicitation = formElicitationOf(request);
    if (elicitation === undefined) {
      const method =
        typeof request === 'object' && request !== null && typeof (request as { method?: unknown }).method === 'string'
          ? (request as { method: string }).method
          : 'an unknown request';
      throw new ToolCallError(
        'TOOL_FAILED',
        `MCP server "${asking.server}" needs ${method === 'elicitation/create' ? 'a URL-mode elicitation' : method} (input "${key}") before it answers tool "${asking.tool}"; agent-spaces answers only form elicitations`,
        target(asking),
        { details: { server: asking.server, tool: asking.tool, input: key, method } },
      );
    }
    responses[key] = await askPerson(asking, elicitation);
  }
  return responses;
}

/**
 * Asks the person or the approval handler one elicitation of the call's server. Approved: `accept`
 * with the values the handler gave, else the defaults the schema names (a yes/no field counts as
 * yes: approving is saying yes). Denied: rejects with the bridge's `APPROVAL_DENIED`.
 */
export async function askPerson(asking: AskingCall, elicitation: McpElicitation): Promise<ElicitResult> {
  const { call } = asking;
  if (call.requestInput === undefined) {
    throw new ToolCallError(
      'APPROVAL_DENIED',
      `MCP server "${asking.server}" asked for input during tool "${asking.tool}", but this call has no approval path (the backend was called without the bridge), so it was denied`,
      target(asking),
      { details: { server: asking.server, tool: asking.tool, reason: 'no approval path' } },
    );
  }
  // The server's schema is its text like its message: its titles and descriptions may quote its secrets.
  const schema =
    elicitation.requestedSchema === undefined
      ? undefined
      : mapStrings(elicitation.requestedSchema as Record<string, unknown>, asking.redact);
  const answer: InputAnswer = await call.requestInput({
    message: `MCP server "${asking.server}" asks, during tool "${asking.tool}": ${asking.redact(elicitation.message)}`,
    ...(schema === undefined ? {} : { requestedSchema: schema }),
  });
  return { action: 'accept', content: contentFor(asking, schema, answer) };
}

/** The values an approval answers with: the handler's, or the schema's defaults and "yes" for yes/no fields. */
function contentFor(
  asking: AskingCall,
  schema: Record<string, unknown> | undefined,
  answer: InputAnswer,
): Record<string, string | number | boolean | string[]> {
  if (answer.content !== undefined) return answer.content as Record<string, string | number | boolean | string[]>;
  const properties = (schema?.properties ?? {}) as Record<string, { type?: unknown; default?: unknown }>;
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (property.default !== undefined) content[name] = property.default as string | number | boolean | string[];
    else if (property.type === 'boolean') content[name] = true;
  }
  const required = Array.isArray(schema?.required)
    ? (schema.required as unknown[]).filter((name): name is string => typeof name === 'string')
    : [];
  const missing = required.filter((name) => !(name in content));
  if (missing.length > 0) {
    throw new ToolCallError(
      'APPROVAL_DENIED',
      `MCP server "${asking.server}" needs values for ${missing.map((name) => `"${name}"`).join(', ')} during tool "${asking.tool}"; the approval gave none (an approval handler answers with { approved: true, content: { … } })`,
      target(asking),
      { details: { server: asking.server, tool: asking.tool, missing } },
    );
  }
  return content;
}

/** The form elicitation an `input_required` entry holds (`{ method: 'elicitation/create', params }`), if that is what it is. */
function formElicitationOf(request: unknown): McpElicitation | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  const { method, params } = request as { method?: unknown; params?: unknown };
  if (method !== 'elicitation/create' || typeof params !== 'object' || params === null) return undefined;
  const { mode, message } = params as { mode?: unknown; message?: unknown };
  if (mode === 'url' || typeof message !== 'string') return undefined;
  return params as McpElicitation;
}

function target(asking: AskingCall): { capability: string; function: string } {
  return { capability: asking.call.capability.module, function: asking.call.function.name };
}

import type { CallToolResult } from '@modelcontextprotocol/client';
import { ToolCallError } from '../../core/index.js';
import type { FunctionSpec, ResultMode } from '../../core/index.js';

/** The whole result of an MCP tool call, as `resultMode: 'full'` returns it. */
export interface McpFullResult {
  content: CallToolResult['content'];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ResultTarget {
  capability: string;
  function: string;
  server: string;
  tool: string;
}

/** The text blocks of a result, joined with newlines. */
export function textOf(result: CallToolResult): string {
  return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/**
 * Turns a `tools/call` result into the call's value, as the generated declaration promises:
 * `structuredContent` for tools with an output schema, the joined text otherwise, the whole result
 * in `full` mode. An `isError` result rejects with `TOOL_ERROR_RESULT` carrying the server's text.
 */
export function mapToolResult(result: CallToolResult, spec: FunctionSpec, mode: ResultMode, target: ResultTarget): unknown {
  const callTarget = { capability: target.capability, function: target.function };
  if (result.isError === true) {
    const text = textOf(result).trim();
    throw new ToolCallError(
      'TOOL_ERROR_RESULT',
      text === '' ? `tool "${target.tool}" of MCP server "${target.server}" returned an error without text` : text,
      callTarget,
      { details: { server: target.server, tool: target.tool, content: result.content } },
    );
  }
  if (mode === 'full') {
    return {
      content: result.content,
      ...(result.structuredContent === undefined || result.structuredContent === null
        ? {}
        : { structuredContent: result.structuredContent as Record<string, unknown> }),
      ...(result.isError === undefined ? {} : { isError: result.isError }),
    } satisfies McpFullResult;
  }
  if (spec.resultKind === 'mcp-text') return textOf(result);
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  // Servers written before structuredContent existed (and some since) put the JSON in a single text
  // block instead; accept that rather than fail a call whose value is plainly there.
  const only = result.content.length === 1 ? result.content[0] : undefined;
  if (only?.type === 'text') {
    try {
      return JSON.parse(only.text) as unknown;
    } catch {
      // Reported below.
    }
  }
  if (spec.resultKind === 'value') return textOf(result);
  throw new ToolCallError(
    'INVALID_RESULT',
    `tool "${target.tool}" of MCP server "${target.server}" has an output schema but returned no structuredContent (and no single JSON text block); call it with the full result to see what it sent`,
    callTarget,
    { details: { server: target.server, tool: target.tool, content: result.content } },
  );
}

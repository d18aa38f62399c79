import type { CallToolResult } from '@modelcontextprotocol/server';
import type { SearchToolsResult } from '../space/index.js';

/** Results larger than this are cut (execute_code: paged, the rest readable as a resource), with a note saying how to get less. */
export const MAX_RESULT_CHARS = 64 * 1024;

/** A tool's text answer, cut at `MAX_RESULT_CHARS` with a note on how to ask for less. */
export function text(body: string): CallToolResult {
  if (body.length <= MAX_RESULT_CHARS) return { content: [{ type: 'text', text: body }] };
  return {
    content: [
      {
        type: 'text',
        text: `${body.slice(0, MAX_RESULT_CHARS)}\n… [cut at ${MAX_RESULT_CHARS} of ${body.length} characters: ask for fewer modules, a narrower query or detail_level "names"]`,
      },
    ],
  };
}

/** A tool's error answer. */
export function errorText(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/** `search_tools`' answer: compact JSON (indentation is about a third of its tokens). */
export function searchResultText(result: SearchToolsResult): string {
  return JSON.stringify(result);
}

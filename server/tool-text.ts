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

/**
 * `search_tools`' answer: compact JSON, and a match that carries its whole declaration (detail "full")
 * without what the declaration already says — its signature, its parameter names, and its description
 * when the declaration's doc comment holds it word for word.
 */
export function searchResultText(result: SearchToolsResult): string {
  const matches = result.matches.map((match) => {
    if (match.declaration === undefined) return match;
    const { signature: _signature, parameters: _parameters, description, ...rest } = match;
    return description === undefined || match.declaration.includes(description) ? rest : { ...rest, description };
  });
  return JSON.stringify({ ...result, matches });
}

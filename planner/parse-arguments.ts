import type { DetailLevel } from '../space/index.js';

export type ParsedCall =
  | { tool: 'search_tools'; query: string; detailLevel: DetailLevel; limit: number }
  | { tool: 'call_tool'; name: string; arguments: unknown }
  | { tool: 'run_code'; code: string }
  | { tool: 'finish'; summary: string; result?: unknown }
  | { tool: 'invalid'; error: string };

const DETAIL_LEVELS: readonly DetailLevel[] = ['names', 'summary', 'full'];

/**
 * Reads one function call of the model. Anything malformed becomes `invalid` with a message telling the
 * model what to send instead; lenient where models commonly slip (arguments double-encoded as a string).
 */
export function parseArguments(name: string, rawArguments: string): ParsedCall {
  let args: unknown;
  try {
    args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
  } catch (error) {
    return { tool: 'invalid', error: `the arguments of ${name} are not valid JSON (${(error as Error).message}); send a JSON object` };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { tool: 'invalid', error: `the arguments of ${name} must be a JSON object` };
  const record = args as Record<string, unknown>;
  switch (name) {
    case 'search_tools': {
      const query = record.query ?? '';
      if (typeof query !== 'string') return { tool: 'invalid', error: 'search_tools: "query" must be a string' };
      const detail = record.detail_level ?? 'summary';
      if (typeof detail !== 'string' || !DETAIL_LEVELS.includes(detail as DetailLevel))
        return { tool: 'invalid', error: `search_tools: "detail_level" must be one of ${DETAIL_LEVELS.join(', ')}` };
      const limit = record.limit ?? 10;
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
        return { tool: 'invalid', error: 'search_tools: "limit" must be a positive integer' };
      return { tool: 'search_tools', query, detailLevel: detail as DetailLevel, limit: Math.min(limit, 50) };
    }
    case 'call_tool': {
      if (typeof record.name !== 'string' || !record.name.includes('.'))
        return { tool: 'invalid', error: 'call_tool: "name" must be a tool id "<module>.<function>" from search_tools' };
      let callArgs = record.arguments ?? {};
      if (typeof callArgs === 'string') {
        try {
          callArgs = JSON.parse(callArgs);
        } catch {
          return { tool: 'invalid', error: 'call_tool: "arguments" must be a JSON object, not a string' };
        }
      }
      if (typeof callArgs !== 'object' || callArgs === null || Array.isArray(callArgs))
        return { tool: 'invalid', error: 'call_tool: "arguments" must be a JSON object' };
      return { tool: 'call_tool', name: record.name, arguments: callArgs };
    }
    case 'run_code':
      if (typeof record.code !== 'string' || record.code.trim() === '')
        return { tool: 'invalid', error: 'run_code: "code" must be a non-empty TypeScript program' };
      return { tool: 'run_code', code: record.code };
    case 'finish':
      if (typeof record.summary !== 'string' || record.summary.trim() === '')
        return { tool: 'invalid', error: 'finish: "summary" must be a non-empty string saying what was done' };
      return { tool: 'finish', summary: record.summary, ...(record.result !== undefined ? { result: record.result } : {}) };
    default:
      return {
        tool: 'invalid',
        error: `there is no function "${name}": use search_tools, call_tool, run_code or finish (capabilities are called through call_tool or run_code)`,
      };
  }
}

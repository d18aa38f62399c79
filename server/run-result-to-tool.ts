import type { CallToolResult } from '@modelcontextprotocol/server';
import type { RunResult } from '../core/index.js';
import type { ResultPages } from './result-pages.js';

/**
 * An `execute_code` result as text and `structuredContent`. Text longer than `maxChars` is not just cut:
 * the whole of it is stored in `pages` (for the caller's `scope`) and the answer carries its first page
 * and a resource link to read the rest page by page; `structuredContent` is cut to the same size.
 */
export function runResultToTool(
  result: RunResult,
  maxChars: number,
  pages: ResultPages,
  scope: string,
  storedRun?: string,
): CallToolResult {
  const body = describeRun(result);
  const structured: Record<string, unknown> = { ...result };
  const failed = result.success ? {} : { isError: true };
  if (body.length <= maxChars) return { content: [{ type: 'text', text: body }], structuredContent: structured, ...failed };
  const stored = pages.store(body, scope, storedRun);
  const note =
    `\n… [page 1 of ${stored.pages}: the whole result is ${body.length} characters. Read the other pages with resources/read of ${stored.uri.replace(/\/1$/, '/<page>')} ` +
    `(pages 1 to ${stored.pages}, until ${stored.expiresAt}), or return aggregates or a slice instead of everything]`;
  return {
    content: [
      { type: 'text', text: `${body.slice(0, pages.pageChars)}${note}` },
      {
        type: 'resource_link',
        uri: stored.uri,
        name: 'execute_code result',
        title: `The whole result, page 1 of ${stored.pages}`,
        mimeType: 'text/plain',
        description: `Page 1 of ${stored.pages}; the page number is the last part of the URI`,
      },
    ],
    structuredContent: {
      ...structured,
      ...cutForStructured(result, maxChars),
      truncated: true,
      resultPages: { uri: stored.uri, pages: stored.pages },
    },
    ...failed,
  };
}

/** The text of a run's answer (errors, logs, result): the same result always gives the same text. */
export function describeRun(result: RunResult): string {
  const lines: string[] = [];
  if (result.error?.diagnostics?.length) {
    lines.push('Type errors (the program did not run):');
    for (const d of result.error.diagnostics) lines.push(`  line ${d.line}:${d.column} ${d.code ? `TS${d.code}: ` : ''}${d.message}`);
  } else if (result.error) {
    const where = result.error.line ? ` at line ${result.error.line}${result.error.column ? `:${result.error.column}` : ''}` : '';
    lines.push(`Error${where}: ${result.error.name} [${result.error.code}]: ${result.error.message}`);
  }
  if (result.logs.length > 0) {
    lines.push('Logs:');
    for (const log of result.logs) lines.push(`  ${log.level === 'log' ? '' : `[${log.level}] `}${log.message}`);
  }
  if (result.success) lines.push(`Result: ${showResult(result.result)}`);
  lines.push(
    `(${result.calls} capability call${result.calls === 1 ? '' : 's'}, ${Math.round(result.durationMs)} ms${result.timedOut ? ', timed out' : ''})`,
  );
  return lines.join('\n');
}

/**
 * The result as compact JSON: the model reads it as well as indented JSON, and indentation is about a
 * third of the tokens of a typical record (and grows with depth: a small result nested deep around a
 * wide array would indent to hundreds of megabytes).
 */
function showResult(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * The result and the first logs that fit in the cap together (half of it at most for the result), so
 * `structuredContent` stays as small as the text beside it.
 */
function cutForStructured(result: RunResult, maxChars: number): { result: unknown; logs: RunResult['logs'] } {
  const half = maxChars / 2;
  const resultText = JSON.stringify(result.result) ?? '';
  const cutResult = resultText.length > half ? `${resultText.slice(0, half)}…` : result.result;
  let room = maxChars - Math.min(resultText.length, half) - (result.error === undefined ? 0 : JSON.stringify(result.error).length);
  const logs: RunResult['logs'] = [];
  for (const log of result.logs) {
    // The JSON of a log entry: its message (escaping aside) and about 30 characters of keys.
    room -= log.message.length + 32;
    if (room < 0) break;
    logs.push(log);
  }
  return { result: cutResult, logs };
}

import type { EvalTranscriptEntry } from './wire-types.js';

/** Steps of a transcript shown at most. */
export const MAX_TRANSCRIPT_ENTRIES = 2000;
/** Characters of one step's text shown at most (the system prompt is the longest, about 25k). */
export const MAX_ENTRY_TEXT = 40_000;

const SEARCH_TOOLS = new Set(['search_tools', 'get_types']);
const CODE_TOOLS = new Set(['execute_code', 'run_code']);

type Record_ = Record<string, unknown>;
const isObject = (value: unknown): value is Record_ => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value, null, 2);

/**
 * A transcript as steps in order, whichever arm wrote it: chat messages (direct, code: system, user,
 * assistant with its tool calls, tool results) or the planner's events (task, replies with their calls,
 * searches, call and program outcomes, finish). Nothing in it is trusted: unknown shapes become
 * `event` steps, long texts and long transcripts are cut.
 */
export function transcriptEntries(transcript: readonly unknown[]): { entries: EvalTranscriptEntry[]; truncated: boolean } {
  const entries: EvalTranscriptEntry[] = [];
  let truncated = transcript.length > MAX_TRANSCRIPT_ENTRIES;
  const push = (entry: EvalTranscriptEntry) => {
    if (entry.text.length > MAX_ENTRY_TEXT) {
      entry.text = `${entry.text.slice(0, MAX_ENTRY_TEXT)}\n… (${entry.text.length - MAX_ENTRY_TEXT} more characters)`;
      truncated = true;
    }
    entries.push(entry);
  };
  for (const item of transcript.slice(0, MAX_TRANSCRIPT_ENTRIES)) {
    if (!isObject(item)) push({ kind: 'event', text: text(item) });
    else if (typeof item.role === 'string') messageEntries(item, push);
    else if (typeof item.type === 'string') eventEntries(item, push);
    else push({ kind: 'event', text: text(item) });
  }
  return { entries, truncated };
}

function toolCallEntries(calls: unknown, push: (entry: EvalTranscriptEntry) => void): void {
  if (!Array.isArray(calls)) return;
  for (const call of calls) {
    const fn = isObject(call) && isObject(call.function) ? call.function : {};
    const name = typeof fn.name === 'string' ? fn.name : 'a tool';
    const raw = typeof fn.arguments === 'string' ? fn.arguments : text(fn.arguments);
    let args: unknown = raw;
    try {
      args = JSON.parse(raw);
    } catch {
      // The model's arguments are shown as written when they are not JSON.
    }
    if (CODE_TOOLS.has(name) && isObject(args) && typeof args.code === 'string') push({ kind: 'code', title: name, text: args.code });
    else push({ kind: SEARCH_TOOLS.has(name) ? 'search' : 'tool-call', title: name, text: text(args) });
  }
}

function messageEntries(message: Record_, push: (entry: EvalTranscriptEntry) => void): void {
  switch (message.role) {
    case 'system':
    case 'user':
      push({ kind: message.role, text: text(message.content) });
      return;
    case 'assistant':
      if (message.content) push({ kind: 'assistant', text: text(message.content) });
      toolCallEntries(message.tool_calls, push);
      return;
    case 'tool': {
      const content = text(message.content);
      const isCode = /^(Result:|Error|Logs:)/.test(content) && /capability calls?, \d+ ms\)\s*$/.test(content);
      push({ kind: isCode ? 'code-result' : 'tool-result', text: content, ok: !/^Error\b/.test(content) });
      return;
    }
    default:
      push({ kind: 'event', title: String(message.role).slice(0, 40), text: text(message.content) });
  }
}

function eventEntries(event: Record_, push: (entry: EvalTranscriptEntry) => void): void {
  switch (event.type) {
    case 'task-start':
      push({ kind: 'user', title: 'task', text: text(event.task) });
      return;
    case 'model-reply': {
      const reply = isObject(event.reply) ? event.reply : {};
      const message = isObject(reply.message) ? reply.message : {};
      if (message.content) push({ kind: 'assistant', text: text(message.content) });
      toolCallEntries(message.tool_calls, push);
      return;
    }
    case 'search-run':
      push({
        kind: 'tool-result',
        title: 'search',
        text: `${Array.isArray(event.matches) ? event.matches.length : 0} of ${text(event.total)} functions for "${text(event.query)}"${event.detailLevel ? ` (${text(event.detailLevel)})` : ''}`,
        ok: true,
      });
      return;
    case 'tool-call':
      push({
        kind: 'tool-result',
        title: text(event.name),
        text: `${event.ok ? 'ok' : 'failed'} in ${Number(event.durationMs ?? 0).toFixed(1)} ms${event.error ? `: ${text(event.error)}` : ''}`,
        ok: event.ok === true,
      });
      return;
    case 'code-run':
      push({
        kind: 'code-result',
        text: `${event.ok ? 'ok' : 'failed'}, ${text(event.calls)} calls, ${Number(event.durationMs ?? 0).toFixed(1)} ms${event.error ? `: ${text(event.error)}` : ''}`,
        ok: event.ok === true,
      });
      return;
    case 'task-finish':
      push({ kind: 'answer', text: text(event.summary), ok: event.success === true });
      return;
    default: {
      const { type, taskId: _taskId, timestamp: _timestamp, step: _step, ...rest } = event;
      push({ kind: 'event', title: String(type).slice(0, 60), text: text(rest) });
    }
  }
}

import { api, ApiError } from '../../api.js';
import { h, jsonBlock, replace } from '../../dom.js';
import type { AgentToolTestView } from '../../types.js';
import type { EditedTool } from './edited-tool.js';

/** Runs one tool (as edited, saved or not) through a session of the agent and shows what happened in `output`. */
export async function testTool(output: HTMLElement, agent: number, tool: EditedTool, args: Record<string, unknown>): Promise<void> {
  replace(output, h('p', { class: 'muted' }, 'Running a session of the agent…'));
  try {
    const answer = await api<AgentToolTestView>('POST', `/api/agents/${agent}/test`, { tool, arguments: args });
    replace(output, ...renderTestAnswer(answer));
  } catch (error) {
    replace(
      output,
      h(
        'p',
        { class: error instanceof ApiError && error.code === 'STUDIO_NO_MODEL' ? 'warn' : 'error', role: 'alert' },
        (error as Error).message,
      ),
    );
  }
}

/** The prompt sent, the session's steps (in a line each, and every event as recorded), and its answer or error. */
function renderTestAnswer(answer: AgentToolTestView): HTMLElement[] {
  return [
    h('h4', {}, 'Prompt sent'),
    h('pre', { class: 'preview' }, answer.prompt),
    h('h4', {}, `Tool calls and steps (${answer.events.length})`),
    h('ol', { class: 'issues', 'aria-label': 'Session steps' }, ...answer.events.map((event) => h('li', {}, describeEvent(event)))),
    h('details', {}, h('summary', {}, 'Every event as recorded'), jsonBlock(answer.events, 'Session events')),
    h('h4', {}, answer.error ? 'Error' : 'Answer'),
    h(
      'pre',
      { class: answer.error ? 'error' : 'preview', 'aria-label': answer.error ? 'Session error' : 'Answer' },
      answer.error ?? answer.answer ?? '',
    ),
  ];
}

/** One line for a session event: what the planner did at that step, and how it went. */
function describeEvent(event: Record<string, unknown>): string {
  const step = typeof event.step === 'number' ? `step ${event.step} · ` : '';
  const outcome =
    event.ok === undefined ? '' : event.ok ? ' ok' : ` failed${isRecord(event.error) ? `: ${String(event.error.message)}` : ''}`;
  switch (event.type) {
    case 'tool-call':
      return `${step}call ${String(event.name)}${outcome}`;
    case 'code-run':
      return `${step}code run, ${String(event.calls)} calls${outcome}`;
    case 'search-run':
      return `${step}search "${String(event.query)}": ${String(event.matches)} matches`;
    case 'task-finish':
      return `${step}finished: ${String(event.summary)}`;
    default:
      return `${step}${String(event.type)}`;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

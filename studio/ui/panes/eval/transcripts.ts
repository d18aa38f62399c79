import { api } from '../../api.js';
import { h, replace } from '../../dom.js';
import type { EvalRunView, EvalTranscriptEntry, EvalTranscriptView } from '../../types.js';
import { pill } from './eval-format.js';

const KIND_LABELS: Record<EvalTranscriptEntry['kind'], string> = {
  system: 'system',
  user: 'task',
  assistant: 'model',
  'tool-call': 'tool call',
  search: 'search',
  code: 'program',
  'tool-result': 'result',
  'code-result': 'program result',
  answer: 'answer',
  event: 'event',
};

/** One task's transcripts (first repetition), one column per arm, into `into`. */
export async function showTranscripts(run: EvalRunView, taskId: string, into: HTMLElement): Promise<void> {
  const views = await Promise.all(
    run.arms.map((arm) =>
      api<EvalTranscriptView>(
        'GET',
        `/api/eval/runs/${encodeURIComponent(run.id)}/transcripts/${arm}/${encodeURIComponent(taskId)}/1`,
      ).catch((error: Error) => ({ arm, error: error.message })),
    ),
  );
  replace(
    into,
    h('h3', {}, `Task ${taskId}: transcripts`),
    h(
      'div',
      { class: 'transcript-columns', style: `--arms: ${views.length}` },
      ...views.map((view) =>
        'error' in view
          ? h('div', { class: 'panel' }, h('h4', {}, view.arm), h('p', { class: 'error' }, view.error))
          : transcriptColumn(view),
      ),
    ),
  );
  into.scrollIntoView({ block: 'start' });
}

function transcriptColumn(view: EvalTranscriptView): HTMLElement {
  return h(
    'div',
    { class: 'panel transcript', 'aria-label': `Transcript ${view.arm}` },
    h('h4', {}, view.arm, ' ', pill(view.success), h('span', { class: 'muted' }, ` ${view.entries.length} steps`)),
    view.reasons.length ? h('p', { class: 'error' }, view.reasons.join('; ')) : null,
    view.truncated ? h('p', { class: 'warn' }, 'Long: some steps are cut.') : null,
    h('ol', { class: 'steps' }, ...view.entries.map(entryView)),
  );
}

function entryView(entry: EvalTranscriptEntry): HTMLElement {
  const label = h('span', { class: `tag kind-${entry.kind}` }, KIND_LABELS[entry.kind]);
  const title = entry.title ? h('strong', { class: 'mono' }, ` ${entry.title}`) : null;
  const failed = entry.ok === false ? h('span', { class: 'error' }, ' failed') : null;
  const long = entry.kind === 'system' || entry.text.length > 1200;
  const body = h('pre', { tabindex: 0 }, entry.text);
  return h(
    'li',
    { class: `step kind-${entry.kind}`, 'data-kind': entry.kind },
    long
      ? h(
          'details',
          {},
          h('summary', {}, label, title, failed, h('span', { class: 'muted' }, ` ${entry.text.length.toLocaleString('en-US')} characters`)),
          body,
        )
      : [h('div', {}, label, title, failed), body],
  );
}

import { diagnosticText } from './diagnostic-text.js';
import { h } from './dom.js';
import type { RunErrorView } from './types.js';

/**
 * An error as a message: its code, what it says, and where in the program (a button that moves the
 * editor there, when `goTo` is given); a type-check failure lists each type error the same way.
 * Never the raw JSON of the error.
 */
export function errorView(error: Partial<RunErrorView> | undefined, goTo?: (line: number, column: number) => void): HTMLElement {
  const where = (line: number | undefined, column: number | undefined): HTMLElement | string | null => {
    if (!line) return null;
    const text = `line ${line}${column ? `:${column}` : ''}`;
    return goTo
      ? h('button', { type: 'button', class: 'link', onclick: () => goTo(line, column ?? 1) }, text)
      : h('span', { class: 'muted' }, text);
  };
  const diagnostics = error?.diagnostics ?? [];
  const context = [
    error?.name && error.name !== 'Error' ? error.name : '',
    error?.capability && error.function ? `in the call ${error.capability}.${error.function}` : '',
  ].filter(Boolean);
  return h(
    'div',
    { class: 'error-message', role: 'alert', 'aria-label': 'Error', 'data-code': error?.code ?? '' },
    h('p', {}, h('code', { class: 'tag error' }, error?.code ?? 'ERROR'), ' ', error?.message ?? 'The run failed and said nothing more.'),
    context.length || error?.line
      ? h(
          'p',
          { class: 'muted' },
          context.join(' · '),
          error?.line ? [context.length ? ' · at ' : 'at ', where(error.line, error.column)] : null,
        )
      : null,
    diagnostics.length
      ? h(
          'ul',
          { class: 'issues', 'aria-label': 'Type errors of the run' },
          ...diagnostics.map((diagnostic) => h('li', {}, where(diagnostic.line, diagnostic.column), ` ${diagnosticText(diagnostic)}`)),
        )
      : null,
  );
}

import { h } from '../../dom.js';
import type { BuildView } from '../../types.js';

/** The last build: when and how long, its failures and warnings, and every source with its modules. */
export function renderBuildReport(build: BuildView): HTMLElement[] {
  const failed = build.errors;
  return [
    h('h3', {}, 'Last build'),
    h(
      'p',
      { class: 'muted' },
      `${build.functions} functions, ${Math.round(build.durationMs)} ms, ${new Date(build.at).toLocaleTimeString()}`,
    ),
    h('h4', {}, `Failures (${failed.length})`),
    failed.length
      ? h(
          'ul',
          { class: 'issues' },
          ...failed.map((error) => h('li', { class: 'error' }, h('strong', {}, error.source), ': ', error.message)),
        )
      : h('p', { class: 'muted' }, 'None.'),
    h('h4', {}, `Warnings (${build.warnings.length})`),
    build.warnings.length ? warningList(build.warnings) : h('p', { class: 'muted' }, 'None.'),
    h('h4', {}, 'Sources'),
    sourcesTable(build.sources),
  ];
}

function warningList(warnings: BuildView['warnings']): HTMLElement {
  return h(
    'ul',
    { class: 'issues' },
    ...warnings.map((warning) =>
      h(
        'li',
        { class: 'warn' },
        h('strong', {}, [warning.source, warning.capability, warning.function].filter(Boolean).join(' · ')),
        warning.pointer ? ` ${warning.pointer}` : '',
        ': ',
        warning.message,
      ),
    ),
  );
}

function sourcesTable(sources: BuildView['sources']): HTMLElement {
  return h(
    'table',
    {},
    h('thead', {}, h('tr', {}, h('th', {}, 'Source'), h('th', {}, 'Status'), h('th', {}, 'Modules'), h('th', {}, 'Functions'))),
    h(
      'tbody',
      {},
      ...sources.map((source) =>
        h(
          'tr',
          {},
          h('td', { class: 'mono' }, source.source),
          h('td', { class: source.status === 'failed' ? 'error' : '' }, source.status),
          h('td', {}, source.modules.join(', ')),
          h('td', {}, source.functions),
        ),
      ),
    ),
  );
}

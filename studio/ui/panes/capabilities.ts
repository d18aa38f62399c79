import { api, onEvent } from '../api.js';
import { h, jsonBlock, labelled, longText, replace, toast, debounce } from '../dom.js';
import type { BuildView, CapabilitiesView, ModuleView } from '../types.js';

/** Every module and function, the build's report, search as `search_tools` ranks, and Rebuild. */
export function capabilitiesPane(root: HTMLElement, route: string[]): () => void {
  const list = h('ul', { class: 'list', 'aria-label': 'Modules' });
  const detail = h(
    'section',
    { class: 'panel', 'aria-live': 'polite', 'aria-label': 'Module' },
    h('p', { class: 'muted' }, 'Loading the build…'),
  );
  const report = h('section', { class: 'panel', 'aria-label': 'Build report' });
  const progress = h('ol', { class: 'progress', 'aria-label': 'Build progress' });
  const rebuild = h('button', { class: 'primary', type: 'button' }, 'Rebuild');
  const searchBox = h('input', { type: 'search', placeholder: "words from a function's name or description", autocomplete: 'off' });
  const detailLevel = h('select', {}, ...['summary', 'names', 'full'].map((level) => h('option', { value: level }, level)));
  const results = h('div', { 'aria-live': 'polite' });
  let view: CapabilitiesView | undefined;

  replace(
    root,
    h('h2', {}, 'Capabilities'),
    h(
      'div',
      { class: 'columns' },
      h('aside', { class: 'panel' }, h('div', { class: 'row' }, rebuild), progress, h('h3', {}, 'Modules'), list),
      h(
        'div',
        {},
        h(
          'section',
          { class: 'panel' },
          h('h3', {}, "Search as the planner's search_tools sees it"),
          h('div', { class: 'row' }, labelled('Query', searchBox), labelled('Detail', detailLevel)),
          results,
        ),
        detail,
        report,
      ),
    ),
  );

  async function load(): Promise<void> {
    try {
      view = await api<CapabilitiesView>('GET', '/api/capabilities');
    } catch (error) {
      replace(detail, h('p', { class: 'error' }, (error as Error).message));
      return;
    }
    replace(
      list,
      ...view.modules.map((module) =>
        h(
          'li',
          {},
          h(
            'button',
            { type: 'button', 'data-module': module.module, onclick: () => (location.hash = `#/capabilities/${module.module}`) },
            module.module,
            ' ',
            h('span', { class: 'muted' }, `(${module.functions.length})`),
          ),
        ),
      ),
    );
    showReport(view.build);
    // The space's own modules come first to the eye: the standard library is in every space.
    const own = view.modules.find((module) => module.source.kind !== 'std' && module.functions.length > 0);
    const example = own?.functions[0]?.name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
    if (example) searchBox.placeholder = `e.g. ${example}`;
    select(route[0] ?? own?.module ?? view.modules[0]?.module);
  }

  function select(name: string | undefined): void {
    const module = view?.modules.find((candidate) => candidate.module === name);
    for (const button of list.querySelectorAll('button')) button.setAttribute('aria-current', String(button.dataset.module === name));
    if (module) replace(detail, ...renderModule(module));
  }

  function showReport(build: BuildView): void {
    const failed = build.errors;
    replace(
      report,
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
      build.warnings.length
        ? h(
            'ul',
            { class: 'issues' },
            ...build.warnings.map((warning) =>
              h(
                'li',
                { class: 'warn' },
                h('strong', {}, [warning.source, warning.capability, warning.function].filter(Boolean).join(' · ')),
                warning.pointer ? ` ${warning.pointer}` : '',
                ': ',
                warning.message,
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'None.'),
      h('h4', {}, 'Sources'),
      h(
        'table',
        {},
        h('thead', {}, h('tr', {}, h('th', {}, 'Source'), h('th', {}, 'Status'), h('th', {}, 'Modules'), h('th', {}, 'Functions'))),
        h(
          'tbody',
          {},
          ...build.sources.map((source) =>
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
      ),
    );
  }

  rebuild.addEventListener('click', async () => {
    rebuild.disabled = true;
    rebuild.textContent = 'Rebuilding…';
    progress.replaceChildren();
    try {
      await api('POST', '/api/build', { force: false });
      toast('Build finished');
      await load();
    } catch (error) {
      toast((error as Error).message);
    } finally {
      rebuild.disabled = false;
      rebuild.textContent = 'Rebuild';
    }
  });

  const runSearch = debounce(async () => {
    const query = searchBox.value.trim();
    if (!query) return results.replaceChildren();
    const found = await api<{
      matches: { id: string; score: number; signature?: string; description?: string; requiresApproval?: boolean }[];
      total: number;
    }>('GET', `/api/search?q=${encodeURIComponent(query)}&detail=${detailLevel.value}`);
    replace(
      results,
      h('p', { class: 'muted' }, `${found.matches.length} of ${found.total} matching`),
      h(
        'ol',
        { class: 'issues', 'aria-label': 'Search results' },
        ...found.matches.map((match) =>
          h(
            'li',
            {},
            h('a', { href: `#/capabilities/${match.id.split('.')[0]}` }, h('code', {}, match.id)),
            ` score ${match.score}`,
            match.signature ? h('div', { class: 'mono muted' }, match.signature) : null,
            match.description ? longText(match.description) : null,
          ),
        ),
      ),
    );
  }, 250);
  searchBox.addEventListener('input', runSearch);
  detailLevel.addEventListener('change', runSearch);

  const stops = [
    onEvent('build-progress', (event) => {
      progress.append(
        h(
          'li',
          { class: event.status === 'failed' ? 'error' : '' },
          `${String(event.source)}: ${String(event.status)}${event.functions !== undefined ? ` (${String(event.functions)} functions)` : ''}${event.message ? ` — ${String(event.message)}` : ''}`,
        ),
      );
    }),
  ];
  void load();
  return () => stops.forEach((stop) => stop());
}

function renderModule(module: ModuleView): (HTMLElement | string)[] {
  const source = module.source;
  const where =
    source.kind === 'mcp'
      ? `MCP server "${source.server}"`
      : source.kind === 'std'
        ? 'standard library'
        : `${source.kind} ${source.path ?? ''}${source.exportName ? ` (export ${source.exportName})` : ''}`;
  return [
    h('h3', {}, h('code', {}, `@capabilities/${module.module}`)),
    module.description
      ? longText(module.description, { 'aria-label': 'Module description' })
      : h('p', { class: 'muted' }, 'No description.'),
    h(
      'p',
      { class: 'muted' },
      'Source: ',
      where,
      module.config.requiresApproval ? h('span', { class: 'tag approval' }, 'every call needs approval') : null,
      module.config.rateLimit
        ? h('span', { class: 'tag' }, `rate limit ${module.config.rateLimit.requests}/${module.config.rateLimit.period}`)
        : null,
    ),
    ...module.functions.map((fn) =>
      h(
        'article',
        { class: 'function', 'aria-label': fn.id },
        h(
          'h4',
          {},
          h('code', {}, fn.name),
          ' ',
          fn.requiresApproval ? h('span', { class: 'tag approval' }, 'requires approval') : null,
          fn.rateLimit ? h('span', { class: 'tag' }, `rate limit ${fn.rateLimit.requests}/${fn.rateLimit.period}`) : null,
          h('a', { href: `#/tester/${fn.id}`, class: 'tag' }, 'Test'),
        ),
        h('div', { class: 'mono' }, fn.signature),
        fn.description ? longText(fn.description) : null,
        h('details', {}, h('summary', {}, 'Parameter schema'), jsonBlock(fn.inputSchema, `${fn.id} parameters`)),
        fn.outputSchema ? h('details', {}, h('summary', {}, 'Result schema'), jsonBlock(fn.outputSchema, `${fn.id} result`)) : null,
      ),
    ),
    h(
      'details',
      {},
      h('summary', {}, 'TypeScript declarations'),
      h('pre', { 'aria-label': 'Declarations', tabindex: 0 }, module.declarations),
    ),
  ];
}

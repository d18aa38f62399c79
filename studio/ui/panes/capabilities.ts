import { api, onEvent } from '../api.js';
import { h, replace, toast } from '../dom.js';
import type { CapabilitiesView, ModuleView } from '../types.js';
import { renderBuildReport } from './capabilities/build-report.js';
import { catalogSearch } from './capabilities/catalog-search.js';
import { renderModule } from './capabilities/module-detail.js';

/** Every module and function, the build's report, search as `search_tools` ranks, and Rebuild. */
export function capabilitiesPane(root: HTMLElement, route: string[]): () => void {
  const { list, detail, report, progress, rebuild, searchBox } = capabilitiesLayout(root);
  let view: CapabilitiesView | undefined;

  async function load(): Promise<void> {
    try {
      view = await api<CapabilitiesView>('GET', '/api/capabilities');
    } catch (error) {
      replace(detail, h('p', { class: 'error' }, (error as Error).message));
      return;
    }
    replace(list, ...moduleButtons(view.modules));
    replace(report, ...renderBuildReport(view.build));
    // The space's own modules come first to the eye: the standard library is in every space.
    const own = view.modules.find((module) => module.own && module.functions.length > 0);
    const example = own?.functions[0]?.name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
    if (example) searchBox.placeholder = `e.g. ${example}`;
    select(route[0] ?? own?.module ?? view.modules[0]?.module);
  }

  function select(name: string | undefined): void {
    const module = view?.modules.find((candidate) => candidate.module === name);
    for (const button of list.querySelectorAll('button')) button.setAttribute('aria-current', String(button.dataset.module === name));
    if (module) replace(detail, ...renderModule(module));
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

  const stops = [onEvent('build-progress', (event) => progress.append(progressLine(event)))];
  void load();
  return () => stops.forEach((stop) => stop());
}

/** The pane's frame: Rebuild, its progress and the modules on the side; search, the module and the build report beside. */
function capabilitiesLayout(root: HTMLElement) {
  const list = h('ul', { class: 'list', 'aria-label': 'Modules' });
  const detail = h(
    'section',
    { class: 'panel', 'aria-live': 'polite', 'aria-label': 'Module' },
    h('p', { class: 'muted' }, 'Loading the build…'),
  );
  const report = h('section', { class: 'panel', 'aria-label': 'Build report' });
  const progress = h('ol', { class: 'progress', 'aria-label': 'Build progress' });
  const rebuild = h('button', { class: 'primary', type: 'button' }, 'Rebuild');
  const search = catalogSearch();
  replace(
    root,
    h('h2', {}, 'Capabilities'),
    h(
      'div',
      { class: 'columns' },
      h('aside', { class: 'panel' }, h('div', { class: 'row' }, rebuild), progress, h('h3', {}, 'Modules'), list),
      h('div', {}, search.element, detail, report),
    ),
  );
  return { list, detail, report, progress, rebuild, searchBox: search.searchBox };
}

/** One button per module, with its number of functions; a click opens it (through the address). */
function moduleButtons(modules: ModuleView[]): HTMLElement[] {
  return modules.map((module) =>
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
  );
}

/** One line of the build's progress: a source, how it went, how many functions, and why it failed. */
function progressLine(event: Record<string, unknown>): HTMLElement {
  return h(
    'li',
    { class: event.status === 'failed' ? 'error' : '' },
    `${String(event.source)}: ${String(event.status)}${event.functions !== undefined ? ` (${String(event.functions)} functions)` : ''}${event.message ? ` — ${String(event.message)}` : ''}`,
  );
}

import { api } from '../../api.js';
import { debounce, h, labelled, longText, replace } from '../../dom.js';
import type { SearchView } from '../../types.js';

/** Search as the planner's `search_tools` ranks, as the user types: a query, a detail level, the matches. */
export function catalogSearch(): { element: HTMLElement; searchBox: HTMLInputElement } {
  const searchBox = h('input', { type: 'search', placeholder: "words from a function's name or description", autocomplete: 'off' });
  const detailLevel = h('select', {}, ...['summary', 'names', 'full'].map((level) => h('option', { value: level }, level)));
  const results = h('div', { 'aria-live': 'polite' });
  const runSearch = debounce(async () => {
    const query = searchBox.value.trim();
    if (!query) return results.replaceChildren();
    const found = await api<SearchView>('GET', `/api/search?q=${encodeURIComponent(query)}&detail=${detailLevel.value}`);
    replace(results, ...renderMatches(found));
  }, 250);
  searchBox.addEventListener('input', runSearch);
  detailLevel.addEventListener('change', runSearch);
  const element = h(
    'section',
    { class: 'panel' },
    h('h3', {}, "Search as the planner's search_tools sees it"),
    h('div', { class: 'row' }, labelled('Query', searchBox), labelled('Detail', detailLevel)),
    results,
  );
  return { element, searchBox };
}

function renderMatches(found: SearchView): HTMLElement[] {
  return [
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
  ];
}

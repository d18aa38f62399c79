import { h, jsonBlock, longText } from '../../dom.js';
import type { FunctionView, ModuleView } from '../../types.js';

/** One module: its name, description, where it comes from (as its source names it) and its flags, every function, its declarations. */
export function renderModule(module: ModuleView): (HTMLElement | string)[] {
  return [
    h('h3', {}, h('code', {}, `@capabilities/${module.module}`)),
    module.description
      ? longText(module.description, { 'aria-label': 'Module description' })
      : h('p', { class: 'muted' }, 'No description.'),
    h(
      'p',
      { class: 'muted' },
      'Source: ',
      module.title,
      module.config.requiresApproval ? h('span', { class: 'tag approval' }, 'every call needs approval') : null,
      module.config.rateLimit
        ? h('span', { class: 'tag' }, `rate limit ${module.config.rateLimit.requests}/${module.config.rateLimit.period}`)
        : null,
    ),
    ...module.functions.map(functionArticle),
    h(
      'details',
      {},
      h('summary', {}, 'TypeScript declarations'),
      h('pre', { 'aria-label': 'Declarations', tabindex: 0 }, module.declarations),
    ),
  ];
}

/** One function: its name and flags with a link to the tester, signature, description, schemas. */
function functionArticle(fn: FunctionView): HTMLElement {
  return h(
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
  );
}

import { api } from '../api.js';
import { debounce, h, labelled, longText, replace } from '../dom.js';
import { schemaForm, type SchemaField } from '../schema-form.js';
import type { CapabilitiesView, FunctionView, ModuleView, ValidationView } from '../types.js';
import { attachExchange, callFunction, drawCall, lastCalledId } from './tester/call-exchange.js';

/** A form from a function's parameter schema (or JSON), checked as you type, and a direct call. */
export function testerPane(root: HTMLElement, route: string[]): () => void {
  const { picker, modeJson, formHost, jsonArea, issues, call, exchange, about } = testerLayout(root);
  let functions: FunctionView[] = [];
  let form: SchemaField | undefined;
  const selected = (): FunctionView | undefined => functions.find((fn) => fn.id === picker.value);
  const currentArguments = (): unknown => (modeJson.checked ? parseArguments(jsonArea.value) : (form?.value() ?? {}));

  const validate = debounce(async () => {
    const fn = selected();
    if (!fn) return;
    await showValidation(fn, currentArguments(), jsonArea, issues);
  }, 200);

  function showFunction(): void {
    const fn = selected();
    if (!fn) return;
    history.replaceState(null, '', `#/tester/${fn.id}`);
    replace(
      about,
      h('p', { class: 'mono' }, fn.signature),
      fn.description ? longText(fn.description) : null,
      fn.requiresApproval ? h('p', { class: 'warn' }, 'This function requires approval: the call waits in the Approvals pane.') : null,
    );
    form = schemaForm(fn.inputSchema, validate);
    replace(formHost, form.element);
    jsonArea.value = JSON.stringify(form.value() ?? {}, null, 2);
    exchange.replaceChildren(h('p', { class: 'muted' }, 'The raw request and response appear here.'));
    exchange.dataset.fn = fn.id;
    if (lastCalledId() === fn.id) drawCall(exchange);
    validate();
  }

  modeJson.addEventListener('change', () => {
    if (modeJson.checked) jsonArea.value = JSON.stringify(form?.value() ?? {}, null, 2);
    jsonArea.hidden = !modeJson.checked;
    formHost.hidden = modeJson.checked;
    validate();
  });
  jsonArea.addEventListener('input', validate);
  picker.addEventListener('change', showFunction);
  call.addEventListener('click', () => {
    const fn = selected();
    const args = currentArguments();
    if (!fn || args instanceof SyntaxError) return;
    void callFunction(fn, args, call, exchange);
  });

  void api<CapabilitiesView>('GET', '/api/capabilities').then((view) => {
    // The space's own functions first: the standard library comes with every space.
    const own = (module: ModuleView): number => (module.own ? 0 : 1);
    functions = [...view.modules].sort((a, b) => own(a) - own(b)).flatMap((module) => module.functions);
    replace(picker, ...functions.map((fn) => h('option', { value: fn.id }, fn.id)));
    const known = (id: string | undefined): id is string => functions.some((fn) => fn.id === id);
    const last = lastCalledId();
    picker.value = known(route[0]) ? route[0] : known(last) ? last : (functions[0]?.id ?? '');
    showFunction();
  });
  return attachExchange(exchange);
}

/** The pane's frame: the function picker, its form or JSON, validation and Call; the request and response beside. */
function testerLayout(root: HTMLElement) {
  const picker = h('select', { name: 'function' });
  const modeJson = h('input', { type: 'checkbox', name: 'json-mode' });
  const formHost = h('div', {});
  const jsonArea = h('textarea', { rows: 10, name: 'arguments-json', 'aria-label': 'Arguments (JSON)', hidden: true }, '{}');
  const issues = h('ul', { class: 'issues', 'aria-label': 'Validation', 'aria-live': 'polite' });
  const call = h('button', { class: 'primary', type: 'button' }, 'Call');
  const exchange = h(
    'section',
    { class: 'panel', 'aria-label': 'Request and response' },
    h('p', { class: 'muted' }, 'The raw request and response appear here.'),
  );
  const about = h('div', {});
  replace(
    root,
    h('h2', {}, 'Function tester'),
    h(
      'div',
      { class: 'split' },
      h(
        'section',
        { class: 'panel', 'aria-label': 'Arguments' },
        labelled('Function', picker),
        about,
        h('div', { class: 'row' }, h('label', {}, modeJson, ' JSON mode (for anything the form cannot express)')),
        formHost,
        jsonArea,
        h('h3', {}, 'Validation'),
        issues,
        h('div', { class: 'row' }, call),
      ),
      exchange,
    ),
  );
  return { picker, modeJson, formHost, jsonArea, issues, call, exchange, about };
}

/** The JSON mode's arguments, or the parse error as a SyntaxError value. */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text || '{}') as unknown;
  } catch (error) {
    return new SyntaxError((error as Error).message);
  }
}

/** What is wrong with the arguments: not JSON, or the server's validation by path. */
async function showValidation(fn: FunctionView, args: unknown, jsonArea: HTMLTextAreaElement, issues: HTMLElement): Promise<void> {
  if (args instanceof SyntaxError) {
    jsonArea.setAttribute('aria-invalid', 'true');
    replace(issues, h('li', { class: 'error' }, `not JSON: ${args.message}`));
    return;
  }
  jsonArea.setAttribute('aria-invalid', 'false');
  const { issues: found } = await api<ValidationView>('POST', '/api/validate', { id: fn.id, arguments: args });
  issues.dataset.count = String(found.length);
  replace(
    issues,
    ...(found.length
      ? found.map((issue) => h('li', { class: 'error' }, h('code', {}, issue.path || '(arguments)'), ` ${issue.message}`))
      : [h('li', { class: 'ok' }, 'Valid arguments.')]),
  );
}

import { api } from '../api.js';
import { debounce, h, jsonBlock, labelled, longText, replace } from '../dom.js';
import { errorView } from '../error-view.js';
import { schemaForm, type SchemaField } from '../schema-form.js';
import type { CallView, CapabilitiesView, FunctionView, ModuleView, ValidationView } from '../types.js';

/**
 * The last direct call, kept beyond the pane: a call that waits for approval goes on while the person
 * decides in the Approvals pane, and its response is here when they come back to the function.
 */
let lastCall: { id: string; request: { id: string; arguments: unknown }; answer?: CallView; failure?: string } | undefined;
/** The open tester's response panel (none while another pane is open). */
let openExchange: HTMLElement | undefined;

function drawCall(exchange: HTMLElement): void {
  if (!lastCall) return;
  const { request, answer, failure } = lastCall;
  if (failure !== undefined)
    return replace(exchange, h('h3', {}, 'Request'), jsonBlock(request, 'Request'), errorView({ code: 'STUDIO', message: failure }));
  if (!answer)
    return replace(
      exchange,
      h('h3', {}, 'Request'),
      jsonBlock(request, 'Request'),
      h('p', { class: 'muted' }, 'Waiting for the response… (a call that needs approval waits in the Approvals pane)'),
    );
  replace(
    exchange,
    h('h3', {}, 'Request'),
    jsonBlock(answer.request, 'Request'),
    h(
      'h3',
      {},
      'Response ',
      h('span', { class: answer.response.ok ? 'ok' : 'error' }, answer.response.ok ? 'ok' : answer.response.error.code),
      h('span', { class: 'muted' }, ` ${answer.durationMs.toFixed(1)} ms`),
    ),
    answer.response.ok ? null : errorView(answer.response.error),
    jsonBlock(answer.response, 'Response'),
  );
}

/** A form from a function's parameter schema (or JSON), checked as you type, and a direct call. */
export function testerPane(root: HTMLElement, route: string[]): () => void {
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
  let functions: FunctionView[] = [];
  let form: SchemaField | undefined;

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

  function selected(): FunctionView | undefined {
    return functions.find((fn) => fn.id === picker.value);
  }

  function currentArguments(): unknown {
    if (modeJson.checked) {
      try {
        return JSON.parse(jsonArea.value || '{}') as unknown;
      } catch (error) {
        return new SyntaxError((error as Error).message);
      }
    }
    return form?.value() ?? {};
  }

  const validate = debounce(async () => {
    const fn = selected();
    if (!fn) return;
    const args = currentArguments();
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
    if (lastCall?.id === fn.id) drawCall(exchange);
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

  call.addEventListener('click', async () => {
    const fn = selected();
    const args = currentArguments();
    if (!fn || args instanceof SyntaxError) return;
    call.disabled = true;
    const current = { id: fn.id, request: { id: fn.id, arguments: args } } as NonNullable<typeof lastCall>;
    lastCall = current;
    drawCall(exchange);
    try {
      current.answer = await api<CallView>('POST', '/api/call', { id: fn.id, arguments: args });
    } catch (error) {
      current.failure = (error as Error).message;
    } finally {
      call.disabled = false;
    }
    if (lastCall === current && openExchange?.dataset.fn === current.id) drawCall(openExchange);
  });

  void api<CapabilitiesView>('GET', '/api/capabilities').then((view) => {
    // The space's own functions first: the standard library comes with every space.
    const own = (module: ModuleView): number => (module.source.kind === 'std' ? 1 : 0);
    functions = [...view.modules].sort((a, b) => own(a) - own(b)).flatMap((module) => module.functions);
    replace(picker, ...functions.map((fn) => h('option', { value: fn.id }, fn.id)));
    const known = (id: string | undefined): id is string => functions.some((fn) => fn.id === id);
    picker.value = known(route[0]) ? route[0] : known(lastCall?.id) ? lastCall.id : (functions[0]?.id ?? '');
    showFunction();
  });
  openExchange = exchange;
  return () => {
    if (openExchange === exchange) openExchange = undefined;
  };
}

import { api } from '../../api.js';
import { h, jsonBlock, replace } from '../../dom.js';
import { errorView } from '../../error-view.js';
import type { CallView, FunctionView } from '../../types.js';

/**
 * The last direct call, kept beyond the pane: a call that waits for approval goes on while the person
 * decides in the Approvals pane, and its response is here when they come back to the function.
 */
let lastCall: { id: string; request: { id: string; arguments: unknown }; answer?: CallView; failure?: string } | undefined;
/** The open tester's response panel (none while another pane is open). */
let openExchange: HTMLElement | undefined;

/** The function called last, if any. */
export function lastCalledId(): string | undefined {
  return lastCall?.id;
}

/** Makes `exchange` the panel a call's response is drawn in; the returned function lets it go. */
export function attachExchange(exchange: HTMLElement): () => void {
  openExchange = exchange;
  return () => {
    if (openExchange === exchange) openExchange = undefined;
  };
}

/** Calls `fn` with `args` directly; the response lands in the open panel if it still shows that function. */
export async function callFunction(fn: FunctionView, args: unknown, call: HTMLButtonElement, exchange: HTMLElement): Promise<void> {
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
}

/** The last call in `exchange`: its request, and its response, its failure, or that it waits. */
export function drawCall(exchange: HTMLElement): void {
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

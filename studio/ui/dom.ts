/** A tiny element builder: the UI is plain DOM, so it needs no framework at run time. */
type Child = Node | string | number | false | null | undefined;
type Attributes = Record<string, string | number | boolean | EventListener | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, '').toLowerCase(), value);
    else if (name === 'class') element.className = String(value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces an element's content. */
export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** Pretty JSON in a `<pre>` (text only: nothing from a tool or a model is ever parsed as HTML). */
export function jsonBlock(value: unknown, label?: string): HTMLElement {
  return h(
    'pre',
    { class: 'json', ...(label ? { 'aria-label': label } : {}), tabindex: 0 },
    value === undefined ? 'undefined' : JSON.stringify(value, null, 2),
  );
}

/** Calls `action` once typing stops for `ms`. */
export function debounce<A extends unknown[]>(action: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => action(...args), ms);
  };
}

let nextId = 0;
/** A unique id for label/field pairs. */
export function uid(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** A labelled field: the label points at the control, for screen readers and clicks. */
export function labelled(text: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || uid('field');
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, text), control, hint ? h('span', { class: 'hint' }, hint) : null);
}

/** A short message in the status line (announced by screen readers). */
export function toast(message: string): void {
  const element = document.getElementById('toast');
  if (!element) return;
  element.textContent = message;
  element.classList.add('shown');
  setTimeout(() => element.classList.remove('shown'), 4000);
}

/** Longest text shown whole before it is cut to its start with a "Show more" button. */
const LONG_TEXT = 240;

/**
 * A description that may be long: short ones whole, long ones (or of many lines) cut to their start,
 * with a button that shows the rest and hides it again.
 */
export function longText(text: string, attributes: Attributes = {}): HTMLElement {
  const lines = text.split('\n');
  if (text.length <= LONG_TEXT && lines.length <= 3) return h('p', { ...attributes, class: 'description' }, text);
  let start = lines.slice(0, 3).join('\n').slice(0, LONG_TEXT);
  const space = start.lastIndexOf(' ');
  if (space > LONG_TEXT / 2) start = start.slice(0, space);
  const shown = h('span', {}, `${start}…`);
  const toggle = h('button', { type: 'button', class: 'link', 'aria-expanded': 'false' }, 'Show more');
  toggle.addEventListener('click', () => {
    const expanded = toggle.getAttribute('aria-expanded') === 'true';
    shown.textContent = expanded ? `${start}…` : text;
    toggle.setAttribute('aria-expanded', String(!expanded));
    toggle.textContent = expanded ? 'Show more' : 'Show less';
  });
  return h('p', { ...attributes, class: 'description long' }, shown, ' ', toggle);
}

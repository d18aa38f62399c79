import { h, uid } from './dom.js';

/** A parameter schema as the builder edits it; fields it does not know stay on the object untouched. */
export type ParameterSchema = Record<string, unknown> & { type?: string };
export type ObjectParameters = ParameterSchema & { properties?: Record<string, ParameterSchema>; required?: string[] };

const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'];

/**
 * The parameters builder of seed 000: one row per parameter (name, type, required, description, enum,
 * min/max, default, examples; arrays with their item type; nested objects with their own parameters).
 * It edits `schema` in place and calls `onChange` after each edit; `onStructure` when rows come or go.
 */
export function parametersBuilder(schema: ObjectParameters, onChange: () => void, label = 'Parameters', depth = 0): HTMLElement {
  const container = h('fieldset', { class: 'parameters' }, h('legend', {}, label));
  const rows = h('div', {});
  const render = (): void => {
    rows.replaceChildren(
      ...Object.keys(schema.properties ?? {}).map((name) => parameterRow(schema, name, () => render(), onChange, depth)),
    );
  };
  const add = h('button', { type: 'button' }, depth === 0 ? 'Add parameter' : 'Add field');
  add.addEventListener('click', () => {
    schema.properties ??= {};
    let index = Object.keys(schema.properties).length + 1;
    while (`param${index}` in schema.properties) index++;
    schema.properties[`param${index}`] = { type: 'string', description: '' };
    render();
    onChange();
    (rows.lastElementChild?.querySelector('input') as HTMLInputElement | null)?.focus();
  });
  render();
  container.append(rows, add);
  return container;
}

function parameterRow(parent: ObjectParameters, name: string, rerender: () => void, onChange: () => void, depth: number): HTMLElement {
  const properties = parent.properties as Record<string, ParameterSchema>;
  const schema = properties[name] as ParameterSchema;
  const required = new Set(parent.required ?? []);
  const row = h('fieldset', { class: 'parameter', 'aria-label': `Parameter ${name}` });

  const nameInput = input('Name', name, (value, element) => {
    // Renaming keeps the order of the properties and the required list in step.
    if (value === name) return;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value) || value in properties) {
      element.setAttribute('aria-invalid', 'true');
      return;
    }
    element.setAttribute('aria-invalid', 'false');
    parent.properties = Object.fromEntries(Object.entries(properties).map(([key, child]) => [key === name ? value : key, child]));
    if (parent.required) parent.required = parent.required.map((key) => (key === name ? value : key));
    name = value;
    onChange();
  });
  nameInput.querySelector('input')?.setAttribute('data-role', 'parameter-name');
  const typeSelect = select('Type', TYPES, schema.type ?? 'string', (value) => {
    schema.type = value;
    for (const key of [
      'enum',
      'minimum',
      'maximum',
      'minLength',
      'maxLength',
      'items',
      'properties',
      'default',
      'examples',
      'minItems',
      'maxItems',
    ])
      delete schema[key];
    if (value === 'array') schema.items = { type: 'string' };
    if (value === 'object') schema.properties = {};
    rerender();
    onChange();
  });
  const requiredBox = h('input', { type: 'checkbox', id: uid('required'), ...(required.has(name) ? { checked: true } : {}) });
  requiredBox.addEventListener('change', () => {
    const list = new Set(parent.required ?? []);
    if (requiredBox.checked) list.add(name);
    else list.delete(name);
    if (list.size) parent.required = [...list];
    else delete parent.required;
    onChange();
  });
  const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Remove parameter ${name}` }, 'Remove');
  remove.addEventListener('click', () => {
    delete properties[name];
    if (parent.required) parent.required = parent.required.filter((key) => key !== name);
    if (parent.required?.length === 0) delete parent.required;
    rerender();
    onChange();
  });

  const details = [
    input('Description', String(schema.description ?? ''), (value) => setOrDelete(schema, 'description', value, onChange)),
    ...typeDetails(schema, name, rerender, onChange, depth),
  ];
  row.append(
    h(
      'div',
      { class: 'row' },
      nameInput,
      typeSelect,
      h('div', { class: 'field' }, h('label', { for: requiredBox.id }, 'Required'), requiredBox),
      remove,
    ),
    h('div', { class: 'row' }, ...details),
  );
  return row;
}

/** The fields a parameter's type has: enum, bounds, default and examples of a scalar; a boolean's default; an array's items; an object's fields. */
function typeDetails(schema: ParameterSchema, name: string, rerender: () => void, onChange: () => void, depth: number): HTMLElement[] {
  const type = schema.type ?? 'string';
  if (type === 'string' || type === 'number' || type === 'integer') return scalarDetails(schema, type, onChange);
  if (type === 'boolean')
    return [
      select('Default', ['(none)', 'true', 'false'], schema.default === undefined ? '(none)' : String(schema.default), (value) =>
        setOrDelete(schema, 'default', value === '(none)' ? undefined : value === 'true', onChange),
      ),
    ];
  if (type === 'array') return arrayDetails(schema, name, rerender, onChange, depth);
  if (type === 'object' && depth < 4) return [parametersBuilder(schema as ObjectParameters, onChange, `Fields of ${name}`, depth + 1)];
  return [];
}

/** A string's or a number's allowed values, bounds (length for a string), default and examples. */
function scalarDetails(schema: ParameterSchema, type: string, onChange: () => void): HTMLElement[] {
  const [low, high] = type === 'string' ? ['minLength', 'maxLength'] : ['minimum', 'maximum'];
  return [
    input('Allowed values (enum, comma-separated)', Array.isArray(schema.enum) ? schema.enum.join(', ') : '', (value) =>
      setOrDelete(schema, 'enum', listOf(value, type), onChange),
    ),
    input(
      type === 'string' ? 'Min length' : 'Minimum',
      schema[low as string] === undefined ? '' : String(schema[low as string]),
      (value) => setOrDelete(schema, low as string, value === '' ? undefined : Number(value), onChange),
      'number',
    ),
    input(
      type === 'string' ? 'Max length' : 'Maximum',
      schema[high as string] === undefined ? '' : String(schema[high as string]),
      (value) => setOrDelete(schema, high as string, value === '' ? undefined : Number(value), onChange),
      'number',
    ),
    input('Default', schema.default === undefined ? '' : String(schema.default), (value) =>
      setOrDelete(schema, 'default', value === '' ? undefined : type === 'string' ? value : Number(value), onChange),
    ),
    input('Examples (comma-separated)', Array.isArray(schema.examples) ? schema.examples.join(', ') : '', (value) =>
      setOrDelete(schema, 'examples', listOf(value, type), onChange),
    ),
  ];
}

/** An array's item type, its bounds, and the fields of an object item (nested up to four levels). */
function arrayDetails(schema: ParameterSchema, name: string, rerender: () => void, onChange: () => void, depth: number): HTMLElement[] {
  const items = (
    schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items) ? schema.items : (schema.items = { type: 'string' })
  ) as ParameterSchema;
  const details = [
    select('Item type', TYPES, items.type ?? 'string', (value) => {
      schema.items = value === 'object' ? { type: 'object', properties: {} } : { type: value };
      rerender();
      onChange();
    }),
    input(
      'Min items',
      schema.minItems === undefined ? '' : String(schema.minItems),
      (value) => setOrDelete(schema, 'minItems', value === '' ? undefined : Number(value), onChange),
      'number',
    ),
    input(
      'Max items',
      schema.maxItems === undefined ? '' : String(schema.maxItems),
      (value) => setOrDelete(schema, 'maxItems', value === '' ? undefined : Number(value), onChange),
      'number',
    ),
  ];
  if (items.type === 'object' && depth < 4)
    details.push(parametersBuilder(items as ObjectParameters, onChange, `Fields of each ${name} item`, depth + 1));
  return details;
}

function input(label: string, value: string, onInput: (value: string, element: HTMLInputElement) => void, type = 'text'): HTMLElement {
  const element = h('input', { type, id: uid('p'), value });
  element.addEventListener('input', () => onInput(element.value, element));
  return h('div', { class: 'field' }, h('label', { for: element.id }, label), element);
}

function select(label: string, options: string[], value: string, onChange: (value: string) => void): HTMLElement {
  const element = h(
    'select',
    { id: uid('p') },
    ...options.map((option) => h('option', { value: option, ...(option === value ? { selected: true } : {}) }, option)),
  );
  element.addEventListener('change', () => onChange(element.value));
  return h('div', { class: 'field' }, h('label', { for: element.id }, label), element);
}

function listOf(text: string, type: string): unknown[] | undefined {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) return undefined;
  return type === 'string' ? items : items.map(Number);
}

function setOrDelete(schema: ParameterSchema, key: string, value: unknown, onChange: () => void): void {
  if (value === undefined || value === '') delete schema[key];
  else schema[key] = value;
  onChange();
}

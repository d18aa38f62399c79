import { h, uid } from './dom.js';
import type { JsonSchema } from './types.js';

/** A form control for one schema: its element and how to read the value it holds (`undefined`: left empty). */
export interface SchemaField {
  element: HTMLElement;
  value(): unknown;
}

type Changed = () => void;

/**
 * A form for a JSON Schema: objects as field sets, arrays as lists with Add and Remove, enums as
 * selects, `oneOf`/`anyOf` as a choice of variant, local `$ref`s followed. What it cannot express (no
 * type, `not`, tuples) gets a JSON box. The form only collects values: checking them is the server's
 * ajv, the same the bridge uses.
 */
export function schemaForm(schema: JsonSchema, onChange: Changed): SchemaField {
  return field(schema, schema, 'Arguments', true, onChange, 0);
}

function field(schema: JsonSchema, root: JsonSchema, label: string, required: boolean, onChange: Changed, depth: number): SchemaField {
  const resolved = resolve(schema, root);
  const description = typeof resolved.description === 'string' ? resolved.description : undefined;
  if (depth > 8) return jsonField(label, description, onChange);
  if (Array.isArray(resolved.enum)) return enumField(label, resolved.enum, required, description, onChange);
  if ('const' in resolved) return constField(label, resolved.const);
  const variants = (Array.isArray(resolved.oneOf) ? resolved.oneOf : Array.isArray(resolved.anyOf) ? resolved.anyOf : undefined) as
    JsonSchema[] | undefined;
  if (variants) return variantField(label, variants, root, required, description, onChange, depth);
  const type = Array.isArray(resolved.type) ? (resolved.type as string[]).find((candidate) => candidate !== 'null') : resolved.type;
  switch (type) {
    case 'object':
      if (resolved.properties && typeof resolved.properties === 'object')
        return objectField(label, resolved, root, description, onChange, depth);
      return jsonField(label, description, onChange);
    case 'array':
      if (resolved.items && typeof resolved.items === 'object' && !Array.isArray(resolved.items))
        return arrayField(label, resolved.items as JsonSchema, root, description, onChange, depth);
      return jsonField(label, description, onChange);
    case 'string':
      return inputField(label, 'text', (text) => text, required, description, resolved.default, onChange);
    case 'number':
    case 'integer':
      return inputField(
        label,
        'number',
        (text) => Number(text),
        required,
        description,
        resolved.default,
        onChange,
        type === 'integer' ? '1' : 'any',
      );
    case 'boolean':
      return booleanField(label, required, description, resolved.default, onChange);
    default:
      return jsonField(label, description, onChange);
  }
}

/** Follows `#/…` references within the root schema (cycles end at the depth limit). */
function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 16; hops++) {
    const pointer = current.$ref.replace(/^#\/?/, '');
    let target: unknown = root;
    for (const segment of pointer ? pointer.split('/') : []) {
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      target = typeof target === 'object' && target !== null ? (target as Record<string, unknown>)[key] : undefined;
    }
    if (typeof target !== 'object' || target === null) break;
    const { $ref: _ref, ...rest } = current;
    current = { ...(target as JsonSchema), ...rest };
  }
  return current;
}

function described(label: string, control: HTMLElement, description: string | undefined, required: boolean): HTMLElement {
  const id = control.id || uid('f');
  control.id = id;
  if (required) control.setAttribute('aria-required', 'true');
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label, required ? ' *' : ''),
    control,
    description ? h('span', { class: 'hint' }, description) : null,
  );
}

function inputField(
  label: string,
  type: string,
  parse: (text: string) => unknown,
  required: boolean,
  description: string | undefined,
  fallback: unknown,
  onChange: Changed,
  step?: string,
): SchemaField {
  const input = h('input', {
    type,
    name: label,
    ...(step ? { step } : {}),
    placeholder: fallback === undefined ? '' : `default: ${String(fallback)}`,
  });
  input.addEventListener('input', onChange);
  return { element: described(label, input, description, required), value: () => (input.value === '' ? undefined : parse(input.value)) };
}

function booleanField(
  label: string,
  required: boolean,
  description: string | undefined,
  fallback: unknown,
  onChange: Changed,
): SchemaField {
  const select = h(
    'select',
    { name: label },
    h('option', { value: '' }, fallback === undefined ? '(not set)' : `(default: ${String(fallback)})`),
    h('option', { value: 'true' }, 'true'),
    h('option', { value: 'false' }, 'false'),
  );
  select.addEventListener('change', onChange);
  return {
    element: described(label, select, description, required),
    value: () => (select.value === '' ? undefined : select.value === 'true'),
  };
}

function enumField(label: string, values: unknown[], required: boolean, description: string | undefined, onChange: Changed): SchemaField {
  const select = h(
    'select',
    { name: label },
    h('option', { value: '' }, '(not set)'),
    ...values.map((value, index) => h('option', { value: String(index) }, JSON.stringify(value))),
  );
  select.addEventListener('change', onChange);
  return {
    element: described(label, select, description, required),
    value: () => (select.value === '' ? undefined : values[Number(select.value)]),
  };
}

function constField(label: string, value: unknown): SchemaField {
  return { element: h('div', { class: 'field' }, h('span', {}, `${label}: `, h('code', {}, JSON.stringify(value)))), value: () => value };
}

function jsonField(label: string, description: string | undefined, onChange: Changed): SchemaField {
  const area = h('textarea', { rows: 3, name: label, placeholder: 'JSON' });
  area.addEventListener('input', () => {
    area.setAttribute('aria-invalid', String(parseJson(area.value) instanceof SyntaxError));
    onChange();
  });
  return {
    element: described(`${label} (JSON)`, area, description, false),
    value: () => {
      const parsed = parseJson(area.value);
      return parsed instanceof SyntaxError ? area.value : parsed;
    },
  };
}

function objectField(
  label: string,
  schema: JsonSchema,
  root: JsonSchema,
  description: string | undefined,
  onChange: Changed,
  depth: number,
): SchemaField {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const children = Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, child]) => ({
    name,
    field: field(child, root, name, required.has(name), onChange, depth + 1),
  }));
  const element =
    depth === 0
      ? h('div', { class: 'form-root' }, ...children.map((child) => child.field.element))
      : h(
          'fieldset',
          {},
          h('legend', {}, label),
          description ? h('p', { class: 'hint' }, description) : null,
          ...children.map((child) => child.field.element),
        );
  return {
    element,
    value: () => {
      const value: Record<string, unknown> = {};
      for (const child of children) {
        const childValue = child.field.value();
        if (childValue !== undefined) value[child.name] = childValue;
      }
      return depth > 0 && Object.keys(value).length === 0 ? undefined : value;
    },
  };
}

function arrayField(
  label: string,
  items: JsonSchema,
  root: JsonSchema,
  description: string | undefined,
  onChange: Changed,
  depth: number,
): SchemaField {
  const entries: { field: SchemaField; row: HTMLElement }[] = [];
  const list = h('div', {});
  const add = h('button', { type: 'button' }, `Add to ${label}`);
  add.addEventListener('click', () => {
    const entry = { field: field(items, root, `${label}[${entries.length}]`, true, onChange, depth + 1), row: h('div', { class: 'row' }) };
    const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${label} item` }, 'Remove');
    remove.addEventListener('click', () => {
      entries.splice(entries.indexOf(entry), 1);
      entry.row.remove();
      onChange();
    });
    entry.row.append(entry.field.element, remove);
    entries.push(entry);
    list.append(entry.row);
    onChange();
  });
  return {
    element: h('fieldset', {}, h('legend', {}, `${label} (list)`), description ? h('p', { class: 'hint' }, description) : null, list, add),
    value: () => (entries.length === 0 ? undefined : entries.map((entry) => entry.field.value())),
  };
}

function variantField(
  label: string,
  variants: JsonSchema[],
  root: JsonSchema,
  required: boolean,
  description: string | undefined,
  onChange: Changed,
  depth: number,
): SchemaField {
  const names = variants.map((variant, index) => {
    const shown = resolve(variant, root);
    return typeof shown.title === 'string' ? shown.title : typeof shown.type === 'string' ? shown.type : `option ${index + 1}`;
  });
  const choice = h(
    'select',
    { 'aria-label': `${label}: which variant` },
    h('option', { value: '' }, '(not set)'),
    ...names.map((name, index) => h('option', { value: String(index) }, name)),
  );
  const body = h('div', {});
  let current: SchemaField | undefined;
  choice.addEventListener('change', () => {
    current =
      choice.value === '' ? undefined : field(variants[Number(choice.value)] as JsonSchema, root, label, required, onChange, depth + 1);
    body.replaceChildren(...(current ? [current.element] : []));
    onChange();
  });
  return {
    element: h(
      'fieldset',
      {},
      h('legend', {}, `${label} (one of)`),
      description ? h('p', { class: 'hint' }, description) : null,
      choice,
      body,
    ),
    value: () => current?.value(),
  };
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return error as SyntaxError;
  }
}

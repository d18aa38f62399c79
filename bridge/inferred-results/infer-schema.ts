import { isJsonSchemaObject, type JsonSchema } from '../../core/index.js';

/**
 * Learns a JSON Schema from sample values, merged across samples: a property is required when every
 * sample had it, array items are merged, integers widen to numbers, a value of another type makes a
 * union (`anyOf`). Only shapes are kept: no enums, formats or examples, so no value of a result is ever
 * stored. Caps keep a hostile or huge result from producing a huge schema: past `maxDepth` a value is
 * `{}` (anything), an object with more than `maxProperties` distinct keys (or a key longer than
 * `maxKeyLength`) becomes a record (`additionalProperties` of its values' merged schema), and a schema
 * past `maxNodes` loses its deepest parts (to `{}`), breadth first.
 *
 * Written here rather than taken from npm: the one fitting package (genson-js) is unmaintained and has
 * none of these caps.
 */
export interface InferenceLimits {
  maxDepth: number;
  maxProperties: number;
  maxKeyLength: number;
  maxNodes: number;
}

export const DEFAULT_INFERENCE_LIMITS: InferenceLimits = { maxDepth: 8, maxProperties: 64, maxKeyLength: 128, maxNodes: 2000 };

/** The schema of one value. */
export function inferSchema(value: unknown, limits: InferenceLimits = DEFAULT_INFERENCE_LIMITS): JsonSchema {
  return limitSize(inferValue(value, 0, limits), limits.maxNodes);
}

/** The narrowest schema (in this inference's terms) that both `a` and `b` accept. */
export function mergeSchemas(a: JsonSchema, b: JsonSchema, limits: InferenceLimits = DEFAULT_INFERENCE_LIMITS): JsonSchema {
  return limitSize(merge(a, b, 0, limits), limits.maxNodes);
}

/** One type's schema; a union of them is `{ anyOf: [...] }`, one per slot at most. */
type Slot = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';
const SLOT_ORDER: Slot[] = ['null', 'boolean', 'number', 'string', 'array', 'object'];
const ANYTHING: JsonSchema = Object.freeze({});

/**
 * What one value (with all its elements and properties) looks like, gathered in one pass: each array
 * element and property value is folded into the shape at its position, counting how often a property
 * was present so `required` can be told. Turned into a schema once, at the end.
 */
interface Shape {
  anything?: boolean;
  null?: boolean;
  boolean?: boolean;
  number?: boolean;
  /** A number that was not an integer was seen. */
  fraction?: boolean;
  string?: boolean;
  /** Present once an array was seen; `items` once an element was. */
  array?: { items?: Shape };
  object?: ObjectShape;
}

interface ObjectShape {
  /** How many objects were folded in. */
  seen: number;
  /** Property → how many of those objects had it, and its values' shape. Absent in record form. */
  properties?: Map<string, { count: number; shape: Shape }>;
  /** Record form (too many or too long keys): every property value's shape. */
  values?: Shape;
}

function inferValue(value: unknown, depth: number, limits: InferenceLimits): JsonSchema {
  const shape: Shape = {};
  fold(shape, value, depth, limits);
  return toSchema(shape);
}

function fold(shape: Shape, value: unknown, depth: number, limits: InferenceLimits): void {
  if (shape.anything === true) return;
  if (depth > limits.maxDepth) {
    shape.anything = true;
    return;
  }
  if (value === null) shape.null = true;
  else if (typeof value === 'boolean') shape.boolean = true;
  else if (typeof value === 'number') {
    shape.number = true;
    if (!Number.isInteger(value)) shape.fraction = true;
  } else if (typeof value === 'string') shape.string = true;
  else if (Array.isArray(value)) {
    const array = (shape.array ??= {});
    for (const element of value) fold((array.items ??= {}), element, depth + 1, limits);
  } else if (typeof value === 'object')
    foldObject((shape.object ??= { seen: 0, properties: new Map() }), value as Record<string, unknown>, depth, limits);
  else shape.anything = true; // not JSON (undefined, a function): nothing to learn
}

function foldObject(object: ObjectShape, value: Record<string, unknown>, depth: number, limits: InferenceLimits): void {
  object.seen += 1;
  for (const key of Object.keys(value)) {
    if (
      object.properties !== undefined &&
      (key.length > limits.maxKeyLength || (!object.properties.has(key) && object.properties.size >= limits.maxProperties))
    ) {
      toRecordForm(object, limits);
    }
    if (object.properties === undefined) {
      fold((object.values ??= {}), value[key], depth + 1, limits);
      continue;
    }
    let property = object.properties.get(key);
    if (property === undefined) {
      property = { count: 0, shape: {} };
      object.properties.set(key, property);
    }
    property.count += 1;
    fold(property.shape, value[key], depth + 1, limits);
  }
}

/** Too many distinct keys: a map keyed by data, not a record of fields. Its values' shapes merge into one. */
function toRecordForm(object: ObjectShape, limits: InferenceLimits): void {
  const values: Shape = object.values ?? {};
  for (const { shape } of object.properties?.values() ?? []) mergeShape(values, shape, limits);
  object.values = values;
  delete object.properties;
}

function mergeShape(into: Shape, from: Shape, limits: InferenceLimits): void {
  for (const flag of ['anything', 'null', 'boolean', 'number', 'fraction', 'string'] as const) if (from[flag] === true) into[flag] = true;
  if (from.array !== undefined) {
    const array = (into.array ??= {});
    if (from.array.items !== undefined) mergeShape((array.items ??= {}), from.array.items, limits);
  }
  if (from.object !== undefined) mergeObjectShape((into.object ??= { seen: 0, properties: new Map() }), from.object, limits);
}

/** Objects seen at two places become one: presence counts add up, so `required` still means "in every one". */
function mergeObjectShape(into: ObjectShape, from: ObjectShape, limits: InferenceLimits): void {
  into.seen += from.seen;
  if (into.properties !== undefined && from.properties !== undefined) {
    for (const [key, property] of from.properties) {
      const existing = into.properties.get(key);
      if (existing === undefined) into.properties.set(key, { count: property.count, shape: copyShape(property.shape, limits) });
      else {
        existing.count += property.count;
        mergeShape(existing.shape, property.shape, limits);
      }
    }
    if (into.properties.size > limits.maxProperties) toRecordForm(into, limits);
    return;
  }
  toRecordForm(into, limits);
  const values = into.values as Shape;
  if (from.values !== undefined) mergeShape(values, from.values, limits);
  for (const { shape } of from.properties?.values() ?? []) mergeShape(values, shape, limits);
}

function copyShape(shape: Shape, limits: InferenceLimits): Shape {
  const copy: Shape = {};
  mergeShape(copy, shape, limits);
  return copy;
}

function toSchema(shape: Shape): JsonSchema {
  if (shape.anything === true) return ANYTHING;
  const variants: JsonSchema[] = [];
  if (shape.null === true) variants.push({ type: 'null' });
  if (shape.boolean === true) variants.push({ type: 'boolean' });
  if (shape.number === true) variants.push({ type: shape.fraction === true ? 'number' : 'integer' });
  if (shape.string === true) variants.push({ type: 'string' });
  if (shape.array !== undefined)
    variants.push(shape.array.items === undefined ? { type: 'array' } : { type: 'array', items: toSchema(shape.array.items) });
  if (shape.object !== undefined) {
    const { properties, values, seen } = shape.object;
    if (properties === undefined) variants.push(record(values === undefined ? ANYTHING : toSchema(values)));
    else {
      const entries = [...properties.entries()];
      variants.push(
        closedObject(
          entries.map(([key, property]): [string, JsonSchema] => [key, toSchema(property.shape)]),
          entries.filter(([, property]) => property.count === seen).map(([key]) => key),
        ),
      );
    }
  }
  if (variants.length === 0) return ANYTHING;
  return variants.length === 1 ? (variants[0] as JsonSchema) : { anyOf: variants };
}

function merge(a: JsonSchema, b: JsonSchema, depth: number, limits: InferenceLimits): JsonSchema {
  if (depth > limits.maxDepth * 2 || isAnything(a) || isAnything(b)) return ANYTHING;
  const slots = new Map<Slot, JsonSchema>();
  for (const variant of [...variantsOf(a), ...variantsOf(b)]) {
    const slot = slotOf(variant);
    if (slot === undefined) return ANYTHING; // a shape this inference never writes (a hand-edited store)
    const existing = slots.get(slot);
    slots.set(slot, existing === undefined ? variant : mergeSameSlot(slot, existing, variant, depth, limits));
  }
  const merged = SLOT_ORDER.flatMap((slot) => slots.get(slot) ?? []);
  return merged.length === 1 ? (merged[0] as JsonSchema) : { anyOf: merged };
}

function mergeSameSlot(slot: Slot, a: JsonSchema, b: JsonSchema, depth: number, limits: InferenceLimits): JsonSchema {
  switch (slot) {
    case 'number':
      return a.type === 'integer' && b.type === 'integer' ? a : { type: 'number' };
    case 'array': {
      const itemsA = isJsonSchemaObject(a.items) ? a.items : undefined;
      const itemsB = isJsonSchemaObject(b.items) ? b.items : undefined;
      if (itemsA === undefined || itemsB === undefined) return itemsA === undefined ? b : a;
      return { type: 'array', items: merge(itemsA, itemsB, depth + 1, limits) };
    }
    case 'object':
      return mergeObjects(a, b, depth, limits);
    default:
      return a;
  }
}

function mergeObjects(a: JsonSchema, b: JsonSchema, depth: number, limits: InferenceLimits): JsonSchema {
  const propertiesA = propertiesOf(a);
  const propertiesB = propertiesOf(b);
  const keys = [...new Set([...propertiesA.keys(), ...propertiesB.keys()])];
  if (isRecord(a) || isRecord(b) || keys.length > limits.maxProperties) {
    let values: JsonSchema | undefined;
    for (const schema of [...propertiesA.values(), ...propertiesB.values(), ...recordValues(a), ...recordValues(b)]) {
      values = values === undefined ? schema : merge(values, schema, depth + 1, limits);
    }
    return record(values ?? ANYTHING);
  }
  const requiredB = new Set(requiredOf(b));
  const required = requiredOf(a).filter((key) => requiredB.has(key));
  const properties = keys.map((key): [string, JsonSchema] => {
    const schemaA = propertiesA.get(key);
    const schemaB = propertiesB.get(key);
    const schema = schemaA === undefined ? schemaB : schemaB === undefined ? schemaA : merge(schemaA, schemaB, depth + 1, limits);
    return [key, schema ?? ANYTHING];
  });
  return closedObject(properties, required);
}

/** A closed object: exactly these properties (new ones are drift), keys sorted so the output is stable. */
function closedObject(properties: [string, JsonSchema][], required: string[]): JsonSchema {
  const sorted = [...properties].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    type: 'object',
    // fromEntries defines own properties: a key "__proto__" stays a key.
    properties: Object.fromEntries(sorted),
    ...(required.length > 0 ? { required: [...new Set(required)].sort() } : {}),
    additionalProperties: false,
  };
}

function record(values: JsonSchema): JsonSchema {
  return { type: 'object', additionalProperties: values };
}

function isAnything(schema: JsonSchema): boolean {
  return Object.keys(schema).length === 0;
}

function isRecord(schema: JsonSchema): boolean {
  return isJsonSchemaObject(schema.additionalProperties) && !isJsonSchemaObject(schema.properties);
}

function recordValues(schema: JsonSchema): JsonSchema[] {
  return isRecord(schema) ? [schema.additionalProperties as JsonSchema] : [];
}

function variantsOf(schema: JsonSchema): JsonSchema[] {
  return Array.isArray(schema.anyOf) ? schema.anyOf.filter(isJsonSchemaObject) : [schema];
}

function slotOf(schema: JsonSchema): Slot | undefined {
  switch (schema.type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'null':
    case 'boolean':
    case 'string':
    case 'array':
    case 'object':
      return schema.type;
    default:
      return undefined;
  }
}

function propertiesOf(schema: JsonSchema): Map<string, JsonSchema> {
  const properties = isJsonSchemaObject(schema.properties) ? schema.properties : {};
  return new Map(Object.entries(properties).filter((entry): entry is [string, JsonSchema] => isJsonSchemaObject(entry[1])));
}

function requiredOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : [];
}

/**
 * Keeps at most `maxNodes` schema nodes, breadth first: what lies deeper than the budget reaches
 * becomes `{}` (anything), so the shallow shape, the part a program reads first, survives.
 */
function limitSize(schema: JsonSchema, maxNodes: number): JsonSchema {
  let budget = maxNodes;
  const copy = (node: JsonSchema): JsonSchema => ({ ...node });
  const root = copy(schema);
  const queue: JsonSchema[] = [root];
  budget -= 1;
  while (queue.length > 0) {
    const node = queue.shift() as JsonSchema;
    const admit = (child: JsonSchema): JsonSchema => {
      if (budget <= 0) return ANYTHING;
      budget -= 1;
      const cloned = copy(child);
      queue.push(cloned);
      return cloned;
    };
    if (Array.isArray(node.anyOf)) node.anyOf = node.anyOf.filter(isJsonSchemaObject).map(admit);
    if (isJsonSchemaObject(node.items)) node.items = admit(node.items);
    if (isJsonSchemaObject(node.additionalProperties)) node.additionalProperties = admit(node.additionalProperties);
    if (isJsonSchemaObject(node.properties)) {
      node.properties = Object.fromEntries(
        Object.entries(node.properties).map(([key, child]) => [key, isJsonSchemaObject(child) ? admit(child) : ANYTHING]),
      );
    }
  }
  return root;
}

import type { OpenApiConfig } from '../../config/index.js';
import { toFunctionName, type CompileWarning, type JsonSchema, type RawFunction } from '../../core/index.js';
import { isJsonMediaType, PLAN_KEYWORD, type CallPlan, type PlannedParameter } from './call-plan.js';
import { outputBudget, SchemaRoot, type SchemaContext } from './convert-schema.js';
import { isJsonObject, toPointer, type JsonObject } from './json-walk.js';
import type { LoadedSpec } from './load-spec.js';
import { findSharedSchemas } from './shared-schemas.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** Parameter locations in the order they claim argument names. */
const LOCATIONS = ['path', 'query', 'header', 'cookie'] as const;
/** Headers the spec may not describe as parameters (OpenAPI: "SHALL be ignored"): the host sets them. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
/**
 * Operations that need approval when the config does not say (`openapi.<api>.requireApproval`): every
 * one that may change something (POST, PUT, PATCH, DELETE, …), not GET and HEAD. `false` turns it off.
 */
export const DEFAULT_REQUIRE_APPROVAL = 'non-get';
/** The argument holding the request body. */
export const BODY_PROPERTY = 'body';

export interface DescribedOperations {
  functions: RawFunction[];
  warnings: CompileWarning[];
}

interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  pointer: string;
  operation: JsonObject;
  pathItem: JsonObject;
  toolName: string;
}

/**
 * Every operation of a dereferenced spec as one function: `operationId` (else method and path) is
 * its name; path, query, header and cookie parameters are arguments by their own names and the request
 * body is the `body` argument (never flattened: a body property can then never collide with a
 * parameter); the result is typed from the 2xx responses (see {@link resultOf}). Writes need approval
 * unless the config says otherwise (`requireApproval` defaults to `'non-get'`).
 */
export function describeOperations(api: string, config: OpenApiConfig, spec: LoadedSpec): DescribedOperations {
  const warnings: CompileWarning[] = [];
  const source = `openapi:${api}`;
  const warn = (pointer: string, message: string, fn?: string): void =>
    void warnings.push({ source, pointer, ...(fn ? { function: fn } : {}), message: `${pointer}: ${message}` });
  const context: SchemaContext = {
    ...namedSchemas(spec),
    version: spec.version,
    warn,
    budget: outputBudget(`openapi "${api}" (${config.spec})`, spec.size),
  };
  const operations = listOperations(spec.document).filter((operation) => isSelected(operation, config));
  checkNamedOperations(config, listOperations(spec.document), warn);
  const configHeaders = new Set(Object.keys(config.headers ?? {}).map((name) => name.toLowerCase()));
  const functions: RawFunction[] = [];
  for (const operation of operations) {
    const fn = describeOperation(operation, spec, context, configHeaders, warn);
    if (fn === undefined) continue;
    if (needsApproval(operation, config.requireApproval ?? DEFAULT_REQUIRE_APPROVAL)) fn.requiresApproval = true;
    functions.push(fn);
  }
  return { functions, warnings };
}

function describeOperation(
  entry: Operation,
  spec: LoadedSpec,
  context: SchemaContext,
  configHeaders: ReadonlySet<string>,
  warn: (pointer: string, message: string, fn?: string) => void,
): RawFunction | undefined {
  const { operation, pathItem, pointer } = entry;
  const input = new SchemaRoot({ ...context, warn: (at, message) => warn(at, message, entry.toolName) });
  const properties: Record<string, JsonSchema | boolean> = {};
  const required: string[] = [];
  const parameters: PlannedParameter[] = [];
  const taken = new Set<string>();
  const body = requestBodyOf(operation);
  if (body !== undefined) taken.add(BODY_PROPERTY);
  for (const { parameter, at } of parametersOf(pathItem, operation, pointer)) {
    const location = parameter.in as PlannedParameter['in'];
    const name = String(parameter.name);
    if (location === 'header' && (IGNORED_HEADERS.has(name.toLowerCase()) || configHeaders.has(name.toLowerCase()))) continue;
    // `__proto__` is dropped from every call's arguments (the call gate): such a parameter gets another name.
    const property = taken.has(name) || name === '__proto__' ? `${name}_${location}` : name;
    taken.add(property);
    const content = isJsonObject(parameter.content) ? Object.values(parameter.content)[0] : undefined;
    const schema = isJsonObject(content) ? content.schema : parameter.schema;
    const converted = input.convert(schema ?? {}, `${at}/${isJsonObject(content) ? 'content' : 'schema'}`);
    define(properties, property, withDescription(converted, parameter.description, parameter.deprecated === true));
    if (parameter.required === true || location === 'path') required.push(property);
    const style = typeof parameter.style === 'string' ? parameter.style : location === 'query' || location === 'cookie' ? 'form' : 'simple';
    parameters.push({
      property,
      name,
      in: location,
      style,
      explode: typeof parameter.explode === 'boolean' ? parameter.explode : style === 'form',
      ...(parameter.allowReserved === true ? { allowReserved: true } : {}),
      ...(isJsonObject(content) ? { json: true } : {}),
    });
  }
  let plannedBody: CallPlan['body'];
  if (body !== undefined) {
    const chosen = chooseMediaType(body.content);
    if (chosen === undefined) {
      warn(
        `${pointer}/requestBody/content`,
        `has no media type this source can send (JSON, form, text); operation "${entry.toolName}" is left out`,
        entry.toolName,
      );
      return undefined;
    }
    const schema =
      isJsonMediaType(chosen.mediaType) || chosen.mediaType === 'application/x-www-form-urlencoded'
        ? input.convert(chosen.schema ?? {}, `${pointer}/requestBody/content/${escape(chosen.mediaType)}/schema`)
        : { type: 'string' };
    define(properties, BODY_PROPERTY, withDescription(schema, body.description, false));
    if (body.required === true) required.push(BODY_PROPERTY);
    plannedBody = { property: BODY_PROPERTY, mediaType: chosen.mediaType };
  }
  const result = resultOf(operation, pointer, new SchemaRoot({ ...context, warn: (at, message) => warn(at, message, entry.toolName) }));
  const server = serverOf([operation.servers, pathItem.servers, spec.document.servers], spec);
  const home = serverOf([spec.document.servers], spec);
  const plan: CallPlan = {
    method: entry.method.toUpperCase(),
    path: entry.path,
    ...(server === undefined ? {} : { server }),
    ...(home === undefined ? {} : { home }),
    parameters,
    ...(plannedBody ? { body: plannedBody } : {}),
    ...(result.accept ? { accept: result.accept } : {}),
  };
  const inputSchema = input.finish({
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    [PLAN_KEYWORD]: plan,
  });
  const description = describe(operation);
  return {
    toolName: entry.toolName,
    ...(description ? { description } : {}),
    inputSchema,
    ...(result.schema ? { outputSchema: result.schema } : {}),
    resultKind: 'value',
    annotations: {
      readOnlyHint: entry.method === 'get' || entry.method === 'head',
      ...(entry.method === 'delete' ? { destructiveHint: true } : {}),
      openWorldHint: true,
    },
  };
}

function listOperations(document: JsonObject): Operation[] {
  const operations: Operation[] = [];
  const paths = isJsonObject(document.paths) ? document.paths : {};
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isJsonObject(pathItem)) continue;
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!isJsonObject(operation)) continue;
      const toolName =
        typeof operation.operationId === 'string' && operation.operationId !== ''
          ? operation.operationId
          : `${method.toUpperCase()} ${path}`;
      operations.push({ method, path, pointer: toPointer(['paths', path, method]), operation, pathItem, toolName });
    }
  }
  return operations;
}

/** The names an operation answers to in `include`, `exclude` and `requireApproval`: operationId, function name, `GET /path`. */
function namesOf(entry: Operation): string[] {
  return [entry.toolName, toFunctionName(entry.toolName), `${entry.method.toUpperCase()} ${entry.path}`];
}

function matches(entry: Operation, filter: { tags?: string[]; operations?: string[] }): boolean {
  const tags = Array.isArray(entry.operation.tags) ? entry.operation.tags : [];
  return (filter.tags ?? []).some((tag) => tags.includes(tag)) || namesOf(entry).some((name) => (filter.operations ?? []).includes(name));
}

function isSelected(entry: Operation, config: OpenApiConfig): boolean {
  return (
    (config.include === undefined || matches(entry, config.include)) && (config.exclude === undefined || !matches(entry, config.exclude))
  );
}

/** A name in include, exclude or requireApproval that no operation has is a typo worth a warning. */
function checkNamedOperations(config: OpenApiConfig, all: Operation[], warn: (pointer: string, message: string) => void): void {
  const known = new Set(all.flatMap(namesOf));
  const tags = new Set(all.flatMap((entry) => (Array.isArray(entry.operation.tags) ? entry.operation.tags.map(String) : [])));
  const lists: [string, string[] | undefined, Set<string>][] = [
    ['include.operations', config.include?.operations, known],
    ['exclude.operations', config.exclude?.operations, known],
    ['include.tags', config.include?.tags, tags],
    ['exclude.tags', config.exclude?.tags, tags],
    ['requireApproval', Array.isArray(config.requireApproval) ? config.requireApproval : undefined, known],
  ];
  for (const [key, names, valid] of lists) {
    for (const name of names ?? []) if (!valid.has(name)) warn('/paths', `${key} names "${name}", which the spec does not have`);
  }
}

function needsApproval(entry: Operation, setting: OpenApiConfig['requireApproval']): boolean {
  if (setting === 'non-get') return entry.method !== 'get' && entry.method !== 'head';
  if (Array.isArray(setting)) return namesOf(entry).some((name) => setting.includes(name));
  return setting === true;
}

/** Path-level parameters overridden by operation-level ones of the same name and location, path ones first. */
function parametersOf(pathItem: JsonObject, operation: JsonObject, pointer: string): { parameter: JsonObject; at: string }[] {
  const byKey = new Map<string, { parameter: JsonObject; at: string }>();
  const pathPointer = pointer.slice(0, pointer.lastIndexOf('/'));
  const add = (list: unknown, at: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((parameter, index) => {
      if (isJsonObject(parameter) && typeof parameter.name === 'string' && LOCATIONS.includes(parameter.in as never))
        byKey.set(`${String(parameter.in)}\0${parameter.name}`, { parameter, at: `${at}/parameters/${index}` });
    });
  };
  add(pathItem.parameters, pathPointer);
  add(operation.parameters, pointer);
  return [...byKey.values()].sort((a, b) => LOCATIONS.indexOf(a.parameter.in as never) - LOCATIONS.indexOf(b.parameter.in as never));
}

function requestBodyOf(operation: JsonObject): { content: JsonObject; required?: unknown; description?: unknown } | undefined {
  const body = operation.requestBody;
  return isJsonObject(body) && isJsonObject(body.content)
    ? { content: body.content, required: body.required, description: body.description }
    : undefined;
}

/** JSON first, then a form, then text or bytes sent as a string; multipart is not supported. */
function chooseMediaType(content: JsonObject): { mediaType: string; schema: unknown } | undefined {
  const types = Object.keys(content);
  const chosen =
    types.find(isJsonMediaType) ??
    types.find((type) => type === 'application/x-www-form-urlencoded') ??
    types.find((type) => !type.startsWith('multipart/'));
  if (chosen === undefined) return undefined;
  const media = content[chosen];
  return { mediaType: chosen, schema: isJsonObject(media) ? media.schema : undefined };
}

/**
 * The result of an operation, from its 2xx responses only (`default` and the 4xx/5xx ones describe
 * errors, which reject): a JSON schema, `string` for another media type, and `null` for a 2xx with no
 * content (a 204, or a response with no `content`), which the declarations write as `void`. Several
 * 2xx responses of different shapes are one of them (`Pet | null` for a 200 with a body and a 204).
 * No 2xx response declared: no output schema (the result is `unknown`).
 */
function resultOf(operation: JsonObject, pointer: string, output: SchemaRoot): { schema?: JsonSchema; accept?: string } {
  const responses = isJsonObject(operation.responses) ? operation.responses : {};
  const success = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort();
  if (success.length === 0) return {};
  const variants: JsonSchema[] = [];
  const accepts: string[] = [];
  const seen = new Set<string>();
  const add = (converted: JsonSchema | boolean): void => {
    const schema = converted === true ? {} : converted === false ? { not: {} } : converted;
    const key = JSON.stringify(schema);
    if (seen.has(key)) return;
    seen.add(key);
    variants.push(schema);
  };
  for (const code of success) {
    const response = responses[code];
    const content = isJsonObject(response) && isJsonObject(response.content) ? response.content : {};
    const types = Object.keys(content);
    if (types.length === 0) {
      add(NO_CONTENT);
      continue;
    }
    const jsonType = types.find(isJsonMediaType);
    if (jsonType === undefined) {
      add({ type: 'string' });
      accepts.push(...types);
      continue;
    }
    accepts.push(jsonType === '*/*' ? 'application/json' : jsonType);
    const media = content[jsonType];
    add(
      isJsonObject(media) && media.schema !== undefined
        ? output.convert(media.schema, `${pointer}/responses/${escape(code)}/content/${escape(jsonType)}/schema`)
        : {},
    );
  }
  // Anything at all (a JSON response without a schema) absorbs the other variants.
  const schema: JsonSchema = variants.some((variant) => Object.keys(variant).length === 0)
    ? {}
    : variants.length === 1
      ? (variants[0] ?? {})
      : { anyOf: variants };
  const accept = [...new Set(accepts)].join(', ');
  return { schema: output.finish(schema), ...(accept === '' ? {} : { accept }) };
}

/** The result of a 2xx response without content: nothing (`null` on the wire, `void` in the declarations). */
const NO_CONTENT: JsonSchema = { type: 'null' };

/** The first server of the first of `lists` that has one (operation, path, document), its variables filled with their defaults. */
function serverOf(lists: unknown[], spec: LoadedSpec): string | undefined {
  const server = lists.map((list) => (Array.isArray(list) ? list[0] : undefined)).find(isJsonObject);
  if (server === undefined || typeof server.url !== 'string') return undefined;
  const variables = isJsonObject(server.variables) ? server.variables : {};
  const filled = server.url.replace(/\{([^}]+)\}/g, (match, name: string) => {
    const variable = variables[name];
    return isJsonObject(variable) && variable.default !== undefined ? String(variable.default) : match;
  });
  try {
    return new URL(filled, spec.baseUrl).href;
  } catch {
    return filled; // relative to a local spec: the config must name baseUrl
  }
}

function describe(operation: JsonObject): string | undefined {
  const parts = [operation.summary, operation.description]
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .map((part) => part.trim());
  if (parts.length === 2 && parts[1]?.startsWith(parts[0] ?? '')) parts.shift();
  if (operation.deprecated === true) parts.push('Deprecated.');
  return parts.length === 0 ? undefined : parts.join('\n\n');
}

function withDescription(schema: JsonSchema | boolean, description: unknown, deprecated: boolean): JsonSchema | boolean {
  if (typeof schema === 'boolean') return schema;
  const extra: JsonSchema = {};
  if (typeof description === 'string' && description.trim() !== '' && schema.description === undefined)
    extra.description = description.trim();
  if (deprecated) extra.deprecated = true;
  if (Object.keys(extra).length === 0) return schema;
  // Beside a `$ref` too: these are annotations, which validation ignores in any draft, while the
  // declarations, the summaries and the studio's forms read them there (an `allOf` wrapper hid the type).
  return { ...schema, ...extra };
}

/** Path segments that say nothing of a schema's name (`#/components/schemas/Holder/properties/a` → `Holder_a`). */
const NOISE = new Set([
  'components',
  'schemas',
  'paths',
  'properties',
  'items',
  'content',
  'responses',
  'schema',
  'allOf',
  'anyOf',
  'oneOf',
  'additionalProperties',
  'parameters',
  'requestBody',
  'requestBodies',
]);

/**
 * A `$defs` name for every shared schema, so that each is written out once per function however often
 * it is used: components by their names, any other `$ref` target by the meaningful segments of its
 * pointer, and likewise every schema the document shares otherwise — the same object at several places
 * (a YAML alias) or equal schemas at several places (see {@link findSharedSchemas}) — unique, with
 * `_2`, `_3`, … on a clash.
 */
function namedSchemas(spec: LoadedSpec): { components: Map<object, string>; pointers: Map<object, string> } {
  const named = new Map<object, string>();
  const pointers = new Map<object, string>();
  const used = new Set<string>();
  const components =
    isJsonObject(spec.document.components) && isJsonObject(spec.document.components.schemas) ? spec.document.components.schemas : {};
  for (const [name, schema] of Object.entries(components)) {
    if (!isJsonObject(schema) || named.has(schema)) continue;
    named.set(schema, name);
    used.add(name);
  }
  const nameOf = (segments: string[]): string => {
    const base =
      segments
        .filter((segment) => !NOISE.has(segment))
        .map((segment) => segment.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, ''))
        .filter(Boolean)
        .join('_') || 'Schema';
    let name = base;
    for (let n = 2; used.has(name); n += 1) name = `${base}_${n}`;
    used.add(name);
    return name;
  };
  const unescape = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');
  for (const [target, ref] of spec.references) {
    if (!ref.startsWith('#/')) continue;
    pointers.set(target, ref.slice(1));
    if (named.has(target)) continue;
    named.set(
      target,
      nameOf(
        ref
          .slice(2)
          .split('/')
          .map((segment) => {
            try {
              return decodeURIComponent(unescape(segment));
            } catch {
              return unescape(segment);
            }
          }),
      ),
    );
  }
  // Equal schemas share their first one's pointer, so they get one name.
  const byPointer = new Map<string, string>();
  for (const [schema, pointer] of findSharedSchemas(schemaPositions(spec.document), named)) {
    let name = byPointer.get(pointer);
    // Named after where it is first used, without the method, status and media type: `Deep0C0`.
    if (name === undefined)
      byPointer.set(
        pointer,
        (name = nameOf(
          pointer
            .slice(1)
            .split('/')
            .map(unescape)
            .filter((segment) => !PLACE_NOISE.test(segment) && !(METHODS as readonly string[]).includes(segment)),
        )),
      );
    named.set(schema, name);
    if (!pointers.has(schema)) pointers.set(schema, pointer);
  }
  return { components: named, pointers };
}

/** Every place of the document that holds a schema an operation may use, with its pointer: components first, then paths. */
function* schemaPositions(document: JsonObject): Generator<[unknown, string]> {
  const components = isJsonObject(document.components) ? document.components : {};
  if (isJsonObject(components.schemas))
    for (const [name, schema] of Object.entries(components.schemas)) yield [schema, toPointer(['components', 'schemas', name])];
  const media = function* (content: unknown, at: (string | number)[]): Generator<[unknown, string]> {
    if (!isJsonObject(content)) return;
    for (const [type, entry] of Object.entries(content))
      if (isJsonObject(entry) && entry.schema !== undefined) yield [entry.schema, toPointer([...at, 'content', type, 'schema'])];
  };
  const parameters = function* (list: unknown, at: (string | number)[]): Generator<[unknown, string]> {
    if (!Array.isArray(list)) return;
    for (const [index, parameter] of list.entries()) {
      if (!isJsonObject(parameter)) continue;
      if (parameter.schema !== undefined) yield [parameter.schema, toPointer([...at, 'parameters', index, 'schema'])];
      yield* media(parameter.content, [...at, 'parameters', index]);
    }
  };
  for (const entry of listOperations(document)) {
    const at = ['paths', entry.path, entry.method];
    yield* parameters(entry.pathItem.parameters, ['paths', entry.path]);
    yield* parameters(entry.operation.parameters, at);
    if (isJsonObject(entry.operation.requestBody)) yield* media(entry.operation.requestBody.content, [...at, 'requestBody']);
    const responses = isJsonObject(entry.operation.responses) ? entry.operation.responses : {};
    for (const [code, response] of Object.entries(responses))
      if (isJsonObject(response)) yield* media(response.content, [...at, 'responses', code]);
  }
}

/** Status codes and media types: where a schema is, not what it is. */
const PLACE_NOISE = /^(?:[1-5](?:\d\d|XX)|default|[\w.+*-]+\/[\w.+*-]+(?:;.*)?)$/i;

/** Sets an own property, whatever its name (`__proto__`, `constructor` are parameter names too). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import { CompileError } from './errors.js';

/** A JSON Schema object as found in tool definitions (draft-07 / 2020-12 keywords). */
export type JsonSchema = { [keyword: string]: unknown };

/** Every schema an input may have; `true`/`false` are valid JSON Schemas too. */
export type JsonSchemaOrBoolean = JsonSchema | boolean;

export function isJsonSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Compiles one JSON Schema into an ajv validate function, or throws a `CompileError` (code
 * `INVALID_SCHEMA`) whose message says why it cannot be used. `onWarning` hears what the schema asks
 * for that is not checked (an unknown `format`); nothing is ever printed.
 */
export type JsonSchemaCompiler = (schema: JsonSchema, onWarning?: (message: string) => void) => ValidateFunction;

type Dialect = 'draft-07' | '2019-09' | '2020-12';
type FormatsPlugin = (ajv: Ajv) => Ajv;
type AjvClass = new (options: Options) => Ajv;

// ajv is loaded when the first validator is made (a bridge's first call, a build), not with the package.
const require = createRequire(import.meta.url);
let ajvClasses: { draft07: AjvClass; draft2019: AjvClass; draft2020: AjvClass; addFormats: FormatsPlugin } | undefined;
function loadAjv(): NonNullable<typeof ajvClasses> {
  if (ajvClasses !== undefined) return ajvClasses;
  // ajv-formats is CommonJS with `exports.default`.
  const formats = require('ajv-formats') as { default?: FormatsPlugin } & FormatsPlugin;
  ajvClasses = {
    draft07: (require('ajv') as { Ajv: AjvClass }).Ajv,
    draft2019: (require('ajv/dist/2019.js') as { Ajv2019: AjvClass }).Ajv2019,
    draft2020: (require('ajv/dist/2020.js') as { Ajv2020: AjvClass }).Ajv2020,
    addFormats: formats.default ?? formats,
  };
  return ajvClasses;
}

/**
 * The one ajv setup of Agent Spaces: the compiler compiles every schema with it at build time, the
 * bridge validates calls with it at run time, so a schema that builds is a schema that validates.
 * The dialect follows `$schema` (2020-12, 2019-09, else draft-07, which is what most tool schemas are
 * written in). Unknown formats are ignored and reported to `onWarning`, never printed.
 *
 * @example
 * const compile = createJsonSchemaCompiler();
 * const validate = compile({ type: 'object', properties: { a: { type: 'number' } } });
 * validate({ a: 1 }); // true
 */
export function createJsonSchemaCompiler(): JsonSchemaCompiler {
  const instances = new Map<Dialect, Ajv>();
  let warn: ((message: string) => void) | undefined;
  // ajv logs through its `logger`; compiling is synchronous, so the warnings of one compile go to its caller.
  const logger = {
    log: () => undefined,
    warn: (...parts: unknown[]) => warn?.(parts.map(String).join(' ')),
    error: (...parts: unknown[]) => warn?.(parts.map(String).join(' ')),
  };
  // ajv registers the `$id`s of a schema it compiles (its root's and nested ones), which its `$ref`s
  // resolve between (`../root.json` from a nested `$id`, `#` under `unevaluatedProperties`); they are
  // taken out again after each compile (see below), so two tools may still share an `$id` (ajv refuses
  // a duplicate of a registered one).
  // The meta-schema check is made once, by hand, to say where a schema is wrong; `compile` need not repeat it.
  const options: Options = { allErrors: true, strict: false, validateFormats: true, validateSchema: false, logger };
  const ajvFor = (dialect: Dialect): Ajv => {
    let ajv = instances.get(dialect);
    if (ajv === undefined) {
      const { draft07, draft2019, draft2020, addFormats } = loadAjv();
      ajv = new (dialect === '2020-12' ? draft2020 : dialect === '2019-09' ? draft2019 : draft07)(options);
      addFormats(ajv);
      instances.set(dialect, ajv);
    }
    return ajv;
  };

  return (schema, onWarning) => {
    const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
    const dialect: Dialect = declared.includes('2020-12') ? '2020-12' : declared.includes('2019-09') ? '2019-09' : 'draft-07';
    // Each instance knows its own meta-schema; draft-04/06 URIs are not registered in ajv but validate
    // the same under draft-07.
    const { $schema: _declared, ...body } = schema;
    const ajv = ajvFor(dialect);
    const seen = new Set<string>();
    warn = (message) => {
      if (seen.has(message)) return; // ajv may log one problem more than once
      seen.add(message);
      onWarning?.(message);
    };
    const registered = new Set([...Object.keys(ajv.schemas), ...Object.keys(ajv.refs)]);
    try {
      if (!ajv.validateSchema(body)) {
        throw new CompileError('INVALID_SCHEMA', `is not a valid JSON Schema (${dialect}): ${describeSchemaErrors(ajv.errors ?? [])}`);
      }
      return withProtoKeys(body, (schema) => ajv.compile(schema));
    } catch (error) {
      if (error instanceof CompileError) throw error;
      throw new CompileError('INVALID_SCHEMA', `cannot be compiled: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    } finally {
      warn = undefined;
      // The compiled function keeps what it resolved; the instance forgets this schema's `$id`s.
      for (const key of Object.keys(ajv.refs)) if (!registered.has(key)) delete ajv.refs[key];
      for (const key of Object.keys(ajv.schemas)) if (!registered.has(key)) delete ajv.schemas[key];
      ajv.removeSchema(body);
    }
  };
}

/**
 * ajv loses a property named `__proto__` (its generated code reads `data.__proto__`, the prototype, and
 * its `properties` drop the key), so a schema that names one is compiled with that key renamed to a
 * name it does not use, and each value is checked with its own `__proto__` keys renamed the same way;
 * errors speak of `__proto__` again. Schemas are data: no key of theirs reaches a prototype.
 */
function withProtoKeys(schema: JsonSchema, compile: (schema: JsonSchema) => ValidateFunction): ValidateFunction {
  const text = JSON.stringify(schema);
  if (!text.includes('"__proto__"')) return compile(schema);
  let stand = '__proto__ ';
  for (let n = 1; text.includes(stand); n += 1) stand = `__proto__ ${n}`;
  const inner = compile(renameProto(schema, stand, true) as JsonSchema);
  const validate = ((data: unknown) => {
    const valid = inner(renameProto(data, stand, false));
    validate.errors =
      inner.errors === null || inner.errors === undefined
        ? null
        : (JSON.parse(JSON.stringify(inner.errors).split(stand).join('__proto__')) as ErrorObject[]);
    return valid;
  }) as ValidateFunction;
  validate.errors = null;
  return validate;
}

/** A copy of `value` with each own key `__proto__` named `stand` (in a schema, `required` entries too). */
function renameProto(value: unknown, stand: string, schema: boolean, key = ''): unknown {
  if (Array.isArray(value)) {
    const names = schema && (key === 'required' || key === 'dependentRequired-item');
    return value.map((item) => (names && item === '__proto__' ? stand : renameProto(item, stand, schema)));
  }
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(value)) {
    const childKey = schema && key === 'dependentRequired' ? 'dependentRequired-item' : name;
    Object.defineProperty(copy, name === '__proto__' ? stand : name, {
      value: renameProto(child, stand, schema, childKey),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * The most characters a capability's schemas may take written out as JSON. Schemas built in code may
 * share objects, and JSON writes a shared object out at every use (ten levels of ten uses: 10^10
 * copies from a few lines), so the size is measured first ({@link jsonWrittenSize}).
 */
export const MAX_WRITTEN_SCHEMA_CHARS = 256 * 1024 * 1024;

/**
 * About how many characters `JSON.stringify(value)` has, each shared object measured once (linear in
 * the distinct objects, whatever their sharing); it stops counting past `limit`.
 */
export function jsonWrittenSize(value: unknown, limit: number = MAX_WRITTEN_SCHEMA_CHARS): number {
  const sizes = new Map<object, number>();
  const onStack = new Set<object>();
  const size = (current: unknown): number => {
    if (typeof current === 'string') return current.length + 2;
    if (typeof current !== 'object' || current === null) return 8;
    const known = sizes.get(current);
    if (known !== undefined) return known;
    if (onStack.has(current)) return 2; // JSON cannot write a cycle; whoever writes it says so
    onStack.add(current);
    let total = 2;
    for (const [key, child] of Object.entries(current)) {
      total += key.length + 4 + size(child);
      if (total > limit) break;
    }
    onStack.delete(current);
    sizes.set(current, total);
    return total;
  };
  return size(value);
}

const MAX_LISTED = 3;

/** The meta-schema's complaints, one per place in the schema, most specific first. */
function describeSchemaErrors(errors: readonly ErrorObject[]): string {
  const byPlace = new Map<string, ErrorObject>();
  for (const error of errors) {
    const current = byPlace.get(error.instancePath);
    // anyOf/oneOf only say "must match a schema in anyOf"; the branch's own error says more.
    if (current === undefined || (['anyOf', 'oneOf'].includes(current.keyword) && !['anyOf', 'oneOf'].includes(error.keyword))) {
      byPlace.set(error.instancePath, error);
    }
  }
  const listed = [...byPlace.entries()].slice(0, MAX_LISTED).map(([place, error]) => {
    const allowed = (error.params as { allowedValues?: unknown }).allowedValues;
    const suffix = Array.isArray(allowed) ? ` (${allowed.map((value) => JSON.stringify(value)).join(', ')})` : '';
    return `at ${place === '' ? '(root)' : place} ${error.message ?? `fails ${error.keyword}`}${suffix}`;
  });
  const more = byPlace.size - listed.length;
  return `${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

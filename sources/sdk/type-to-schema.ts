import type { Node, Symbol as MorphSymbol, Type } from 'ts-morph';
import type { JsonSchema } from '../../core/index.js';

/**
 * How a TypeScript type becomes the JSON Schema the bridge validates against (an SDK's parameters and
 * results, a saved program's exported signature, a `defineTool` result type). Only JSON data has a
 * schema: strings, numbers, booleans, `null`, literals and enums, arrays and tuples, plain objects and
 * records of those, unions and intersections of them. Named object types (`interface Issue`, `type
 * Trip = {…}`, enums) become `$defs` entries referenced by `$ref`, so the declarations emitted from
 * the schema keep their names; TSDoc of types and properties becomes `description`.
 */
export interface TypeSchemaOptions {
  /**
   * Leave out an optional property whose type is not JSON data (a callback, an `AbortSignal`), noted in
   * {@link TypeSchema.omitted}, instead of refusing the whole type (default true: an SDK's options
   * object often has one, and a program simply cannot pass it).
   */
  omitOptionalNonJson?: boolean;
  /** Nesting past this depth is refused as too deep (default 32). */
  maxDepth?: number;
  /** The most named types (`$defs`) one schema may hold before it is refused as too large (default 300). */
  maxDefinitions?: number;
}

export interface TypeSchema {
  /** The schema (with `$defs` for the named types it uses); `{}` when {@link unsupported}. */
  schema: JsonSchema;
  /** Why the type is not JSON data (`a function`, `an instance of class Client`, `a stream`), where it is. */
  unsupported?: string;
  /** Optional properties left out because they are not JSON data (`options.signal: an AbortSignal`). */
  omitted?: string[];
}

/** Objects that are never JSON data, by their global name, with what to call them. */
const NOT_JSON: Record<string, string> = {
  Date: 'a Date (pass an ISO string instead)',
  RegExp: 'a RegExp',
  Map: 'a Map',
  Set: 'a Set',
  WeakMap: 'a WeakMap',
  WeakSet: 'a WeakSet',
  Promise: 'a Promise',
  Error: 'an Error',
  ArrayBuffer: 'binary data (ArrayBuffer)',
  Uint8Array: 'binary data (Uint8Array)',
  Buffer: 'binary data (Buffer)',
  Blob: 'binary data (Blob)',
  ReadableStream: 'a stream',
  WritableStream: 'a stream',
  Readable: 'a stream',
  Writable: 'a stream',
  AsyncIterable: 'a stream (AsyncIterable)',
  AsyncIterableIterator: 'a stream (AsyncIterableIterator)',
  AsyncGenerator: 'a stream (AsyncGenerator)',
  Iterator: 'an iterator',
  Generator: 'a generator',
  AbortSignal: 'an AbortSignal',
  Function: 'a function',
};

class NotJsonError extends Error {}

/**
 * The JSON Schema of `type` as seen at `node` (where property types are resolved), or why it has none.
 *
 * @example
 * ```ts
 * const fn = sourceFile.getFunctionOrThrow('getTrip');
 * const { schema, unsupported } = schemaOfType(fn.getReturnType(), fn, {});
 * ```
 */
export function schemaOfType(type: Type, node: Node, options: TypeSchemaOptions = {}): TypeSchema {
  const deriver = new SchemaDeriver(node, options);
  try {
    const schema = deriver.schemaOf(type, '', 0);
    return withDefinitions(schema, deriver);
  } catch (error) {
    if (error instanceof NotJsonError) return { schema: {}, unsupported: error.message };
    throw error;
  }
}

/**
 * One object schema for several named values (a function's parameters: `{ a: number; b?: string }`),
 * sharing one `$defs`. A value whose type is not JSON data makes the whole unsupported, unless it is
 * optional and {@link TypeSchemaOptions.omitOptionalNonJson} (then it is left out and noted).
 */
export function schemaOfMembers(
  members: readonly { name: string; type: Type; optional: boolean; description?: string }[],
  node: Node,
  options: TypeSchemaOptions = {},
): TypeSchema {
  const deriver = new SchemaDeriver(node, options);
  try {
    const schema = deriver.objectOf(
      members.map((member) => ({ ...member, symbol: undefined })),
      '',
      0,
    );
    return withDefinitions(schema, deriver);
  } catch (error) {
    if (error instanceof NotJsonError) return { schema: {}, unsupported: error.message };
    throw error;
  }
}

function withDefinitions(schema: JsonSchema, deriver: SchemaDeriver): TypeSchema {
  const result: TypeSchema = {
    schema: deriver.definitions.size === 0 ? schema : { ...schema, $defs: Object.fromEntries(deriver.definitions) },
  };
  if (deriver.omitted.length > 0) result.omitted = deriver.omitted;
  return result;
}

interface Member {
  name: string;
  type: Type;
  optional: boolean;
  description?: string;
  symbol: MorphSymbol | undefined;
}

class SchemaDeriver {
  readonly definitions = new Map<string, JsonSchema>();
  readonly omitted: string[] = [];
  readonly #names = new Map<unknown, string>();
  readonly #node: Node;
  readonly #omitOptional: boolean;
  readonly #maxDepth: number;
  readonly #maxDefinitions: number;

  constructor(node: Node, options: TypeSchemaOptions) {
    this.#node = node;
    this.#omitOptional = options.omitOptionalNonJson ?? true;
    this.#maxDepth = options.maxDepth ?? 32;
    this.#maxDefinitions = options.maxDefinitions ?? 300;
  }

  schemaOf(type: Type, where: string, depth: number): JsonSchema {
    if (depth > this.#maxDepth) throw new NotJsonError(`${at(where)}nested more than ${this.#maxDepth} levels deep`);
    if (type.isAny() || type.isUnknown()) return {};
    if (type.isNever()) return { not: {} };
    if (type.isString() || type.isTemplateLiteral()) return { type: 'string' };
    if (type.isNumber()) return { type: 'number' };
    if (type.isBoolean()) return { type: 'boolean' };
    if (type.isNull()) return { type: 'null' };
    if (type.isUndefined() || type.isVoid()) return { type: 'null' };
    if (type.isLiteral() || type.isBooleanLiteral()) return { const: literalOf(type) };
    if (type.isBigInt() || type.isBigIntLiteral()) throw new NotJsonError(`${at(where)}a bigint`);
    const text = type.getText();
    if (text === 'symbol' || text === 'unique symbol' || text.startsWith('typeof ')) throw new NotJsonError(`${at(where)}${text}`);
    if (type.isTypeParameter()) {
      const constraint = type.getConstraint();
      return constraint === undefined ? {} : this.schemaOf(constraint, where, depth + 1);
    }
    if (type.isEnum() || (type.isUnion() && !type.isBoolean())) return this.#union(type, where, depth);
    if (type.isArray() || type.isReadonlyArray?.()) {
      const element = type.getArrayElementType() ?? type.getTypeArguments()[0];
      return { type: 'array', items: element === undefined ? {} : this.schemaOf(element, `${where}[]`, depth + 1) };
    }
    if (type.isTuple()) return this.#tuple(type, where, depth);
    if (type.isIntersection()) return this.#named(type, () => this.#object(type, where, depth));
    if (type.isObject()) {
      this.#refuseNonData(type, where);
      return this.#named(type, () => this.#object(type, where, depth));
    }
    throw new NotJsonError(`${at(where)}${type.getText()} is not JSON data`);
  }

  /** An object schema of `members`, each a property (required unless optional). */
  objectOf(members: readonly Member[], where: string, depth: number): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const member of members) {
      const path = where === '' ? member.name : `${where}.${member.name}`;
      let schema: JsonSchema;
      try {
        schema = this.schemaOf(member.type, path, depth + 1);
      } catch (error) {
        if (!(error instanceof NotJsonError) || !member.optional || !this.#omitOptional) throw error;
        this.omitted.push(error.message);
        continue;
      }
      const description = member.description ?? (member.symbol === undefined ? undefined : this.#docOf(member.symbol));
      properties[member.name] = description === undefined || description === '' ? schema : { ...schema, description };
      // `x: T | undefined` may be absent just as `x?: T`: JSON has no undefined.
      if (!member.optional && !admitsUndefined(member.type)) required.push(member.name);
    }
    return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  }

  #object(type: Type, where: string, depth: number): JsonSchema {
    const members: Member[] = [];
    for (const symbol of type.getProperties()) {
      const name = symbol.getName();
      if (name.startsWith('__@')) continue; // symbol-keyed members (Symbol.iterator) never reach JSON
      const memberType = symbol.getTypeAtLocation(this.#node);
      members.push({ name, type: memberType, optional: symbol.isOptional(), symbol });
    }
    const schema = this.objectOf(members, where, depth);
    const index = type.getStringIndexType() ?? type.getNumberIndexType();
    if (index !== undefined) schema.additionalProperties = this.schemaOf(index, `${where}[key]`, depth + 1);
    return schema;
  }

  #union(type: Type, where: string, depth: number): JsonSchema {
    const parts = type.getUnionTypes();
    // `undefined` in a union means "may be absent" (JSON has no undefined); `null` is a value.
    const nullable = parts.some((part) => part.isNull());
    const rest = parts.filter((part) => !part.isNull() && !part.isUndefined());
    // `true | false` inside a wider union is TypeScript's spelling of boolean.
    const hasTrue = rest.some((part) => part.isBooleanLiteral() && part.getText() === 'true');
    const hasFalse = rest.some((part) => part.isBooleanLiteral() && part.getText() === 'false');
    const merged = hasTrue && hasFalse ? rest.filter((part) => !part.isBooleanLiteral()) : rest;
    const schemas: JsonSchema[] = merged.map((part) => this.schemaOf(part, where, depth + 1));
    if (hasTrue && hasFalse) schemas.push({ type: 'boolean' });
    if (nullable) schemas.push({ type: 'null' });
    const result = combine(schemas);
    const named = type.isEnum() ? type.getSymbol()?.getName() : type.getAliasSymbol()?.getName();
    if (named === undefined || type.getAliasTypeArguments().length > 0 || schemas.length < 2) return result;
    return this.#define(type, named, () => result, type.getAliasSymbol() ?? type.getSymbol());
  }

  #tuple(type: Type, where: string, depth: number): JsonSchema {
    const elements = type.getTupleElements();
    const schemas = elements.map((element, index) => this.schemaOf(element, `${where}[${index}]`, depth + 1));
    // Draft-07 and 2020-12 spell positional items differently; the element types joined are exact enough.
    return { type: 'array', items: combine(schemas), minItems: elements.length, maxItems: elements.length };
  }

  /** Declares a named object type once, in `$defs`, and refers to it; anything else is inlined. */
  #named(type: Type, build: () => JsonSchema): JsonSchema {
    const alias = type.getAliasSymbol();
    const symbol = alias ?? type.getSymbol();
    const generic = (alias !== undefined ? type.getAliasTypeArguments() : type.getTypeArguments()).length > 0;
    const name = symbol === undefined || generic ? undefined : (schemaEntryName(symbol) ?? symbol.getName());
    if (symbol === undefined || name === undefined || !/^[A-Za-z_$][\w$]*$/.test(name) || name.startsWith('__')) {
      return build();
    }
    return this.#define(type, name, build, symbol);
  }

  #define(type: Type, name: string, build: () => JsonSchema, symbol: MorphSymbol | undefined): JsonSchema {
    const key = type.compilerType;
    let defined = this.#names.get(key);
    if (defined === undefined) {
      if (this.definitions.size >= this.#maxDefinitions) {
        throw new NotJsonError(`more than ${this.#maxDefinitions} named types: too large to declare`);
      }
      defined = name;
      for (let index = 2; this.definitions.has(defined); index += 1) defined = `${name}${index}`;
      this.#names.set(key, defined);
      this.definitions.set(defined, {}); // taken before building, so a recursive type refers to itself
      const schema = build();
      const description = symbol === undefined ? undefined : this.#docOf(symbol);
      this.definitions.set(defined, description === undefined || description === '' ? schema : { ...schema, description });
    }
    return { $ref: `#/$defs/${defined}` };
  }

  /** Refuses a function, a class or its instance, a stream and other objects that are not data. */
  #refuseNonData(type: Type, where: string): void {
    if (type.getCallSignatures().length > 0) throw new NotJsonError(`${at(where)}a function`);
    if (type.getConstructSignatures().length > 0) throw new NotJsonError(`${at(where)}a class`);
    const symbol = type.getSymbol();
    const name = symbol?.getName() ?? '';
    const known = NOT_JSON[name];
    if (known !== undefined) throw new NotJsonError(`${at(where)}${known}`);
    if (symbol?.getDeclarations().some((declaration) => declaration.getKindName() === 'ClassDeclaration')) {
      throw new NotJsonError(`${at(where)}an instance of class ${name}`);
    }
    if (
      type
        .getProperties()
        .some((property) => property.getName() === '__@asyncIterator' || property.getName().startsWith('__@asyncIterator'))
    ) {
      throw new NotJsonError(`${at(where)}a stream (async iterable)`);
    }
  }

  #docOf(symbol: MorphSymbol): string | undefined {
    return symbolDoc(symbol, this.#node);
  }
}

/** The TSDoc text of `symbol` (as the checker of `node`'s project reads it), or undefined when it has none. */
export function symbolDoc(symbol: MorphSymbol, node: Node): string | undefined {
  const checker = node.getProject().getTypeChecker().compilerObject;
  const text = symbol.compilerSymbol
    .getDocumentationComment(checker)
    .map((part) => part.text)
    .join('')
    .trim();
  return text === '' ? undefined : text;
}

/**
 * The name of an object type written inline as an entry of a `schemas` map — how openapi-typescript
 * declares an API's types (`components["schemas"]["simple-user"]`, used by Octokit and many generated
 * SDKs): `SimpleUser`. Such a type has no name of its own, but its entry's key is the schema's name.
 */
function schemaEntryName(symbol: MorphSymbol): string | undefined {
  if (symbol.getName() !== '__type') return undefined;
  let entry = symbol.getDeclarations()[0]?.getParent();
  // `"nullable-simple-user": { … } | null`: the literal is one member of the entry's union.
  while (entry !== undefined && (entry.getKindName() === 'UnionType' || entry.getKindName() === 'ParenthesizedType'))
    entry = entry.getParent();
  const map = entry?.getParent()?.getParent();
  if (entry?.getKindName() !== 'PropertySignature' || map?.getKindName() !== 'PropertySignature') return undefined;
  const mapName = map.getSymbol()?.getName();
  if (mapName !== 'schemas' && mapName !== 'definitions') return undefined;
  const key = entry.getSymbol()?.getName() ?? '';
  const pascal = key
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '')
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');
  return /^[A-Za-z]/.test(pascal) ? pascal : undefined;
}

/** `at options.signal: ` — where in the type a problem is, for a reason's head. */
function at(where: string): string {
  return where === '' ? '' : `${where}: `;
}

function literalOf(type: Type): unknown {
  if (type.isBooleanLiteral()) return type.getText() === 'true';
  return type.getLiteralValue();
}

function admitsUndefined(type: Type): boolean {
  return type.isUndefined() || (type.isUnion() && type.getUnionTypes().some((part) => part.isUndefined()));
}

/** One schema for any of `schemas`: constants folded into `enum`, one alone as itself. */
function combine(schemas: JsonSchema[]): JsonSchema {
  if (schemas.length === 1 && schemas[0] !== undefined) return schemas[0];
  const constants = schemas.filter((schema) => Object.keys(schema).length === 1 && 'const' in schema);
  if (constants.length === schemas.length) return { enum: constants.map((schema) => schema.const) };
  const nullOnly = schemas.filter((schema) => Object.keys(schema).length === 1 && schema.type === 'null');
  if (constants.length === schemas.length - nullOnly.length && nullOnly.length === 1 && constants.length > 0) {
    return { enum: [...constants.map((schema) => schema.const), null] };
  }
  return { anyOf: schemas };
}

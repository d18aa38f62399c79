import { isJsonSchemaObject, type JsonSchema } from '../../core/index.js';
import { resolveRef, resolveSegments, toPointer } from './json-pointer.js';
import { matchesNothing } from './matches-nothing.js';
import { refOf } from './ref-targets.js';
import { docComment } from './ts-doc.js';
import {
  INDENT,
  MAX_DEPTH,
  NEVER,
  UNKNOWN,
  describeValue,
  intersection,
  literalType,
  propertyKey,
  safeJson,
  union,
  wrap,
  type TypeText,
} from './type-text.js';

const OBJECT_KEYWORDS = ['properties', 'additionalProperties', 'patternProperties', 'required', 'minProperties', 'maxProperties'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'];

export interface SchemaTypeWarning {
  /** JSON pointer inside the root schema. */
  pointer: string;
  message: string;
}

/**
 * Writes TypeScript declarations for one root schema (a function's input or output). Named types are
 * the root (`rootName`) and every `$ref` target, named by `names` (pointer → type name). A part that
 * cannot be typed becomes `unknown` and a warning; the output always type-checks.
 */
export class SchemaTypeWriter {
  readonly warnings: SchemaTypeWarning[] = [];
  private readonly unguardedEdges = new Map<string, string[]>();
  private readonly ancestors = new Set<object>();

  constructor(
    private readonly root: unknown,
    /** Pointer → declared type name; `''` is the root. */
    private readonly names: ReadonlyMap<string, string>,
  ) {}

  /** `export interface …` / `export type …` for the named type at `pointer`, with its doc comment. */
  declaration(pointer: string, segments: readonly string[], extraDoc: readonly string[] = []): string {
    const name = this.names.get(pointer) ?? 'Unknown';
    const schema = segments.length === 0 ? this.root : resolveSegments(this.root, segments);
    const doc = docComment([...describe(schema), ...extraDoc]);
    if (isJsonSchemaObject(schema) && isPlainObjectSchema(schema)) {
      const body = this.objectBody(schema, [...segments], 0, pointer, 0);
      return `${doc}export interface ${name} ${body}\n`;
    }
    const type = this.typeOf(schema, [...segments], 0, pointer, false, 0);
    return `${doc}export type ${name} = ${type.text};\n`;
  }

  private warn(segments: readonly string[], message: string): void {
    this.warnings.push({ pointer: toPointer(segments), message });
  }

  /**
   * @param owner pointer of the named type being declared (to refuse a reference cycle with no object
   *   or array in between, which TypeScript rejects as a circular type alias)
   * @param guarded whether this position is inside an object or array type of the declaration
   */
  private typeOf(schema: unknown, path: string[], level: number, owner: string, guarded: boolean, depth: number): TypeText {
    if (typeof schema !== 'object' || schema === null) return this.schemaType(schema, path, level, owner, guarded, depth);
    // Schemas built in code (not parsed from JSON) may contain themselves.
    if (this.ancestors.has(schema)) {
      this.warn(path, 'contains itself (a cyclic object, not a $ref); typed as unknown');
      return UNKNOWN;
    }
    this.ancestors.add(schema);
    try {
      return this.schemaType(schema, path, level, owner, guarded, depth);
    } finally {
      this.ancestors.delete(schema);
    }
  }

  private schemaType(schema: unknown, path: string[], level: number, owner: string, guarded: boolean, depth: number): TypeText {
    if (schema === true) return UNKNOWN;
    if (schema === false) return NEVER;
    if (!isJsonSchemaObject(schema)) {
      this.warn(path, `is not a JSON Schema (got ${describeValue(schema)}); typed as unknown`);
      return UNKNOWN;
    }
    if (depth > MAX_DEPTH) {
      this.warn(path, `is nested more than ${MAX_DEPTH} levels deep; typed as unknown`);
      return UNKNOWN;
    }
    if (matchesNothing(schema)) return NEVER;
    const parts: TypeText[] = [];
    const ref = refOf(schema);
    if (ref !== undefined) parts.push(this.refType(ref, path, owner, guarded));
    else if (schema.$dynamicRef !== undefined || schema.$recursiveRef !== undefined) {
      this.warn(path, 'uses a dynamic reference that cannot be resolved statically; typed as unknown');
    }
    parts.push(this.baseType(schema, path, level, owner, guarded, depth));
    const allOf = schema.allOf;
    if (Array.isArray(allOf)) {
      allOf.forEach((item, index) => parts.push(this.typeOf(item, [...path, 'allOf', String(index)], level, owner, guarded, depth + 1)));
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const list = schema[keyword];
      if (!Array.isArray(list)) continue;
      parts.push(union(list.map((item, index) => this.typeOf(item, [...path, keyword, String(index)], level, owner, guarded, depth + 1))));
    }
    const typed = intersection(parts);
    return schema.nullable === true ? union([typed, { text: 'null', binding: 'primary' }]) : typed;
  }

  private refType(ref: string, path: string[], owner: string, guarded: boolean): TypeText {
    const segments = resolveRef(this.root, ref, path);
    if (segments === undefined) {
      this.warn([...path, '$ref'], `refers to "${ref}" outside this schema, which is not fetched; typed as unknown`);
      return UNKNOWN;
    }
    const target = toPointer(segments);
    const name = this.names.get(target);
    if (name === undefined || resolveSegments(this.root, segments) === undefined) {
      this.warn([...path, '$ref'], `refers to "${ref}", which does not exist in this schema; typed as unknown`);
      return UNKNOWN;
    }
    if (!guarded && this.reaches(target, owner)) {
      this.warn([...path, '$ref'], `refers to "${ref}" in a cycle with no object or array in between; typed as unknown`);
      return UNKNOWN;
    }
    return { text: name, binding: 'primary' };
  }

  /** Whether the named type at `from` refers to `to` through references outside objects and arrays. */
  private reaches(from: string, to: string): boolean {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const current = stack.pop() ?? '';
      if (current === to) return true;
      if (seen.has(current)) continue;
      seen.add(current);
      stack.push(...this.unguardedRefsOf(current));
    }
    return false;
  }

  private unguardedRefsOf(pointer: string): string[] {
    const cached = this.unguardedEdges.get(pointer);
    if (cached !== undefined) return cached;
    const edges: string[] = [];
    const seen = new Set<object>();
    const visit = (schema: unknown, path: string[], depth: number): void => {
      if (!isJsonSchemaObject(schema) || depth > MAX_DEPTH || seen.has(schema)) return;
      seen.add(schema);
      const ref = refOf(schema);
      const segments = ref === undefined ? undefined : resolveRef(this.root, ref, path);
      if (segments !== undefined) edges.push(toPointer(segments));
      for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
        const list = schema[keyword];
        if (Array.isArray(list)) list.forEach((item, index) => visit(item, [...path, keyword, String(index)], depth + 1));
      }
    };
    const start = pointerSegments(pointer);
    visit(resolveSegments(this.root, start), start, 0);
    this.unguardedEdges.set(pointer, edges);
    return edges;
  }

  /** The type of everything except `$ref` and the combinators. */
  private baseType(schema: JsonSchema, path: string[], level: number, owner: string, guarded: boolean, depth: number): TypeText {
    const unsupported =
      (keyword: string) =>
      (reason: string): void =>
        this.warn([...path, keyword], `${reason}; that part is typed as unknown`);
    if (Object.hasOwn(schema, 'const')) return literalType(schema.const, level, 0, unsupported('const'));
    if (Object.hasOwn(schema, 'enum')) {
      if (!Array.isArray(schema.enum)) {
        this.warn([...path, 'enum'], 'is not an array; typed as unknown');
        return UNKNOWN;
      }
      return schema.enum.length === 0 ? NEVER : union(schema.enum.map((value) => literalType(value, level, 0, unsupported('enum'))));
    }
    const declared = schema.type;
    const types = Array.isArray(declared) ? declared : declared === undefined ? inferTypes(schema) : [declared];
    if (types.length === 0) return UNKNOWN;
    return union(
      types.map((type): TypeText => {
        switch (type) {
          case 'string':
            return { text: 'string', binding: 'primary' };
          case 'number':
          case 'integer':
            return { text: 'number', binding: 'primary' };
          case 'boolean':
            return { text: 'boolean', binding: 'primary' };
          case 'null':
            return { text: 'null', binding: 'primary' };
          case 'array':
            return this.arrayType(schema, path, level, owner, depth);
          case 'object':
            return { text: this.objectBody(schema, path, level, owner, depth), binding: 'primary' };
          default:
            this.warn([...path, 'type'], `has unknown type ${describeValue(type)}; typed as unknown`);
            return UNKNOWN;
        }
      }),
    );
  }

  private arrayType(schema: JsonSchema, path: string[], level: number, owner: string, depth: number): TypeText {
    const tupleKeyword = Array.isArray(schema.prefixItems) ? 'prefixItems' : Array.isArray(schema.items) ? 'items' : undefined;
    if (tupleKeyword === undefined) {
      if (schema.items === undefined) return { text: 'unknown[]', binding: 'primary' };
      return {
        text: `${wrap(this.typeOf(schema.items, [...path, 'items'], level, owner, true, depth + 1), 'primary')}[]`,
        binding: 'primary',
      };
    }
    const prefix = schema[tupleKeyword] as unknown[];
    const restKeyword = tupleKeyword === 'prefixItems' ? 'items' : 'additionalItems';
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const elements = prefix.map((item, index) => {
      const element = this.typeOf(item, [...path, tupleKeyword, String(index)], level, owner, true, depth + 1);
      return index < minItems ? element.text : `${wrap(element, 'primary')}?`;
    });
    const rest = schema[restKeyword];
    if (rest !== false) {
      const restType =
        rest === undefined || rest === true ? UNKNOWN : this.typeOf(rest, [...path, restKeyword], level, owner, true, depth + 1);
      elements.push(`...${wrap(restType, 'primary')}[]`);
    }
    return { text: `[${elements.join(', ')}]`, binding: 'primary' };
  }

  /**
   * `{ … }` for an object schema. Without `properties`, `additionalProperties` or `patternProperties`
   * it is a free-form record; otherwise undeclared keys are not allowed unless a schema admits them.
   */
  private objectBody(schema: JsonSchema, path: string[], level: number, owner: string, depth: number): string {
    const inner = INDENT.repeat(level + 1);
    if (schema.properties !== undefined && !isJsonSchemaObject(schema.properties)) {
      this.warn([...path, 'properties'], 'is not an object of property schemas; ignored');
    }
    const properties = isJsonSchemaObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((key) => typeof key === 'string') : []);
    const members: string[] = [];
    const memberTypes: TypeText[] = [];
    const keys = Object.keys(properties);
    for (const key of keys) {
      const property = properties[key];
      const type = this.typeOf(property, [...path, 'properties', key], level + 1, owner, true, depth + 1);
      const optional = !required.has(key);
      memberTypes.push(optional ? union([type, { text: 'undefined', binding: 'primary' }]) : type);
      const doc = isJsonSchemaObject(property) ? docComment(describe(property), inner, tagsOf(property)) : '';
      members.push(`${doc}${inner}${propertyKey(key)}${optional ? '?' : ''}: ${type.text};\n`);
    }
    for (const key of [...required].filter((key) => !Object.hasOwn(properties, key)).sort()) {
      members.push(`${inner}${propertyKey(key)}: unknown;\n`);
      memberTypes.push(UNKNOWN);
    }
    const indexTypes: TypeText[] = [];
    const patterns = isJsonSchemaObject(schema.patternProperties) ? schema.patternProperties : {};
    for (const pattern of Object.keys(patterns)) {
      indexTypes.push(this.typeOf(patterns[pattern], [...path, 'patternProperties', pattern], level + 1, owner, true, depth + 1));
    }
    const additional = schema.additionalProperties;
    const declaresShape = schema.properties !== undefined || additional !== undefined || indexTypes.length > 0;
    if (additional === true || !declaresShape) indexTypes.push(UNKNOWN);
    else if (additional !== undefined && additional !== false) {
      indexTypes.push(this.typeOf(additional, [...path, 'additionalProperties'], level + 1, owner, true, depth + 1));
    }
    if (indexTypes.length > 0) {
      // Every declared property must be assignable to the index signature's type.
      const valueType = union([...indexTypes, ...memberTypes]);
      members.push(`${inner}[key: string]: ${valueType.text};\n`);
    } else if (members.length === 0) {
      members.push(`${inner}[key: string]: never;\n`);
    }
    return `{\n${members.join('')}${INDENT.repeat(level)}}`;
  }
}

/** Whether the schema is exactly an object type (so it can be declared as an interface). */
function isPlainObjectSchema(schema: JsonSchema): boolean {
  const typeIsObject = schema.type === 'object' || (schema.type === undefined && inferTypes(schema).includes('object'));
  const combined = ['allOf', 'anyOf', 'oneOf', 'enum', 'const', '$ref', '$recursiveRef', '$dynamicRef'].some((keyword) =>
    Object.hasOwn(schema, keyword),
  );
  return typeIsObject && !combined && schema.nullable !== true;
}

/** The path segments of a JSON pointer (`/$defs/a~1b` → `['$defs', 'a/b']`). */
function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function inferTypes(schema: JsonSchema): string[] {
  if (OBJECT_KEYWORDS.some((keyword) => Object.hasOwn(schema, keyword))) return ['object'];
  if (ARRAY_KEYWORDS.some((keyword) => Object.hasOwn(schema, keyword))) return ['array'];
  return [];
}

function describe(schema: unknown): string[] {
  if (!isJsonSchemaObject(schema)) return [];
  if (typeof schema.description === 'string') return [schema.description];
  return typeof schema.title === 'string' ? [schema.title] : [];
}

function tagsOf(schema: JsonSchema): string[] {
  const tags: string[] = [];
  if (typeof schema.format === 'string') tags.push(`@format ${schema.format}`);
  if (Object.hasOwn(schema, 'default')) {
    const text = safeJson(schema.default);
    if (text !== undefined && text.length <= 200) tags.push(`@default ${text}`);
  }
  if (schema.deprecated === true) tags.push('@deprecated');
  return tags;
}

import { isJsonSchemaObject } from '../../core/index.js';

/** A TypeScript type expression and how tightly it binds (so it is parenthesized only when needed). */
export interface TypeText {
  text: string;
  binding: 'union' | 'intersection' | 'primary';
  /** The members of a union, so unions nest flat and without duplicates. */
  members?: readonly TypeText[];
}

export const UNKNOWN: TypeText = { text: 'unknown', binding: 'primary' };
export const NEVER: TypeText = { text: 'never', binding: 'primary' };
export const INDENT = '  ';
/** Deeper schemas and constants are typed as unknown (and reported). */
export const MAX_DEPTH = 48;

export function propertyKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

/** The literal type of a JSON value (`const`/`enum`); `unknown` for anything JSON cannot hold. */
export function literalType(value: unknown, level: number, depth: number, unsupported: (reason: string) => void): TypeText {
  if (depth > MAX_DEPTH) {
    unsupported(`holds a value nested more than ${MAX_DEPTH} levels deep`);
    return UNKNOWN;
  }
  if (value === null) return { text: 'null', binding: 'primary' };
  if (typeof value === 'string') return { text: JSON.stringify(value), binding: 'primary' };
  if (typeof value === 'boolean') return { text: String(value), binding: 'primary' };
  if (typeof value === 'number')
    return Number.isFinite(value) ? { text: JSON.stringify(value), binding: 'primary' } : { text: 'number', binding: 'primary' };
  if (Array.isArray(value))
    return { text: `[${value.map((item) => literalType(item, level, depth + 1, unsupported).text).join(', ')}]`, binding: 'primary' };
  if (isJsonSchemaObject(value)) {
    const inner = INDENT.repeat(level + 1);
    const members = Object.keys(value).map(
      (key) => `${inner}${propertyKey(key)}: ${literalType(value[key], level + 1, depth + 1, unsupported).text};\n`,
    );
    return {
      text: members.length === 0 ? '{ [key: string]: never }' : `{\n${members.join('')}${INDENT.repeat(level)}}`,
      binding: 'primary',
    };
  }
  unsupported(`holds a ${typeof value}, which is not a JSON value`);
  return UNKNOWN;
}

export function wrap(type: TypeText, needed: 'intersection' | 'primary'): string {
  const order = { union: 0, intersection: 1, primary: 2 };
  return order[type.binding] >= order[needed] ? type.text : `(${type.text})`;
}

export function union(types: readonly TypeText[]): TypeText {
  const members = unique(types.flatMap((type) => (type.binding === 'union' ? splitUnion(type) : [type])));
  if (members.length === 0) return NEVER;
  if (members.some((member) => member.text === 'unknown')) return UNKNOWN;
  const withoutNever = members.filter((member) => member.text !== 'never');
  if (withoutNever.length === 0) return NEVER;
  if (withoutNever.length === 1) return withoutNever[0] ?? NEVER;
  return { text: withoutNever.map((member) => member.text).join(' | '), binding: 'union', members: withoutNever };
}

function splitUnion(type: TypeText): readonly TypeText[] {
  return type.members ?? [type];
}

export function intersection(types: readonly TypeText[]): TypeText {
  const parts = unique(types.filter((type) => type.text !== 'unknown'));
  if (parts.length === 0) return UNKNOWN;
  if (parts.length === 1) return parts[0] ?? UNKNOWN;
  return { text: parts.map((part) => wrap(part, 'intersection')).join(' & '), binding: 'intersection' };
}

function unique(types: readonly TypeText[]): TypeText[] {
  const seen = new Set<string>();
  return types.filter((type) => (seen.has(type.text) ? false : (seen.add(type.text), true)));
}

/** JSON text of a value, or undefined for values JSON cannot hold (cycles, BigInt, functions). */
export function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

export function describeValue(value: unknown): string {
  const text = safeJson(value);
  if (text === undefined) return typeof value;
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

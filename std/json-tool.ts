import { z } from 'zod';
import { ToolCallError, defineFunction, defineTool } from '../core/index.js';
import { DEFAULT_STD_LIMITS, OutputTooLargeError, withOutputLimit, type StdLimits } from './std-limits.js';

/** Deepest nesting `parse` accepts: deeper text is not data a program needs, only a way to make the host allocate. */
export const MAX_JSON_DEPTH = 1000;

/** `json`: parse, write and query JSON values, within the result cap. */
export function createJsonTool(limits: Partial<Pick<StdLimits, 'maxResultBytes' | 'maxInputChars'>> = {}) {
  const maxResultBytes = limits.maxResultBytes ?? DEFAULT_STD_LIMITS.maxResultBytes;
  const maxInputChars = limits.maxInputChars ?? DEFAULT_STD_LIMITS.maxInputChars;
  return defineTool({
    name: 'json',
    description: 'Parse JSON text, write values as JSON, and read a value at a dotted path.',
    functions: {
      parse: defineFunction({
        description: `Parses JSON text into a value; fails with the parser message when the text is not JSON (or nests deeper than ${MAX_JSON_DEPTH}).`,
        parameters: z.object({ text: z.string().max(maxInputChars) }),
        returns: z.unknown(),
        handler: ({ text }, context) => {
          const depth = nestingDepth(text, MAX_JSON_DEPTH);
          if (depth > MAX_JSON_DEPTH) {
            throw new ToolCallError(
              'INVALID_ARGUMENTS',
              `the JSON text nests deeper than ${MAX_JSON_DEPTH} levels: flatten it`,
              { capability: context.capability, function: context.function },
              {
                details: { maxDepth: MAX_JSON_DEPTH },
              },
            );
          }
          return JSON.parse(text) as unknown;
        },
      }),
      stringify: defineFunction({
        description: 'Writes a value as JSON text, compact or indented.',
        parameters: z.object({
          value: z.unknown(),
          indent: z.number().int().min(0).max(10).default(0).describe('Spaces per level (0: one line).'),
        }),
        returns: z.string(),
        handler: ({ value, indent }, context) =>
          withOutputLimit(context, 'write a smaller value, or with less indent', () => stringifyWithin(value, indent, maxResultBytes)),
      }),
      query: defineFunction({
        description: 'Reads the value at a dotted path such as "items[0].name" or "items.0.name"; null when nothing is there.',
        parameters: z.object({ value: z.unknown(), path: z.string().max(10_000).describe('Dotted path; "" is the value itself.') }),
        returns: z.unknown(),
        handler: ({ value, path }) => queryPath(value, path) ?? null,
      }),
    },
  });
}

/** The value at `a.b[0].c` (or `a.b.0.c`) inside `value`; `undefined` when a step is missing. */
export function queryPath(value: unknown, path: string): unknown {
  const steps = path
    .replace(/\[(\d+|"[^"]*"|'[^']*')\]/g, (_match, key: string) => `.${key.replace(/^["']|["']$/g, '')}`)
    .split('.')
    .filter((step) => step !== '');
  let current = value;
  for (const step of steps) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, step)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/** The deepest `[`/`{` nesting of JSON text (strings skipped), counting no further than `stopAfter + 1`. */
export function nestingDepth(text: string, stopAfter: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAfter) return deepest;
    } else if (code === 0x5d || code === 0x7d) {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * JSON.stringify, refusing a result past `limit` characters before building it: indentation adds
 * `indent × depth` characters to every line, so a small, deep value can become a huge text.
 */
export function stringifyWithin(value: unknown, indent: number, limit: number): string {
  const compact = JSON.stringify(value) ?? 'null';
  if (compact.length > limit) throw new OutputTooLargeError('the JSON text', limit);
  if (indent === 0) return compact;
  let length = compact.length;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof current !== 'object' || current === null) continue;
    const children = Array.isArray(current) ? (current as unknown[]) : Object.values(current);
    if (children.length === 0) continue;
    // Each child on its own line at depth + 1 (objects add a space after each colon), then the closing line.
    length += children.length * (1 + indent * (depth + 1) + (Array.isArray(current) ? 0 : 1)) + 1 + indent * depth;
    if (length > limit) throw new OutputTooLargeError('the indented JSON text', limit);
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  return JSON.stringify(value, null, indent);
}

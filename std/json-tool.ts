import { z } from 'zod';
import { defineFunction, defineTool } from '../core/index.js';

/** `json`: parse, write and query JSON values. */
export function createJsonTool() {
  return defineTool({
    name: 'json',
    description: 'Parse JSON text, write values as JSON, and read a value at a dotted path.',
    functions: {
      parse: defineFunction({
        description: 'Parses JSON text into a value; fails with the parser message when the text is not JSON.',
        parameters: z.object({ text: z.string() }),
        returns: z.unknown(),
        handler: ({ text }) => JSON.parse(text) as unknown,
      }),
      stringify: defineFunction({
        description: 'Writes a value as JSON text, compact or indented.',
        parameters: z.object({ value: z.unknown(), indent: z.number().int().min(0).max(10).default(0).describe('Spaces per level (0: one line).') }),
        returns: z.string(),
        handler: ({ value, indent }) => JSON.stringify(value, null, indent === 0 ? undefined : indent) ?? 'null',
      }),
      query: defineFunction({
        description: 'Reads the value at a dotted path such as "items[0].name" or "items.0.name"; null when nothing is there.',
        parameters: z.object({ value: z.unknown(), path: z.string().describe('Dotted path; "" is the value itself.') }),
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

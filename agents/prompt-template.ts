/**
 * Tool prompt templates: `{param}` placeholders filled from the call's arguments.
 *
 * Rules (the seed's `{}` syntax, made exact):
 * - `{key}` is a placeholder when `key` is a name (`[A-Za-z_][A-Za-z0-9_.-]*`); any other `{` is
 *   plain text, so JSON examples in a prompt need no escaping. `{{` and `}}` are a literal `{` / `}`.
 * - A declared parameter wins: `{destination}` is the call's `destination`. A parameter literally
 *   named `name` is therefore the argument, not the tool's name.
 * - `{name}` (when no parameter is called `name`) and `{tool.name}` (always) are the tool's name;
 *   `{tool.description}` its description.
 * - A missing optional parameter renders its schema `default` when it has one, otherwise stays as
 *   the literal `{param}` (as the seed's preview shows it).
 * - Strings are inserted as they are; other values as JSON.
 * - A placeholder that is none of these is a load-time error naming the tool and the placeholder.
 * - A template that references no parameter gets the arguments appended as JSON, so a call's
 *   arguments always reach the agent.
 */
import type { ObjectSchema } from './tool-schema.js';

export type TemplatePart = { kind: 'text'; text: string } | { kind: 'placeholder'; key: string; raw: string };

export interface TemplateTool {
  name: string;
  description?: string;
  parameters: ObjectSchema;
  prompt: string;
}

const TOKEN = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g;
const TOOL_KEYS = new Set(['tool.name', 'tool.description']);

/** Splits a template into text and placeholders (escapes already resolved). */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let last = 0;
  for (const match of template.matchAll(TOKEN)) {
    text += template.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === '{{') text += '{';
    else if (match[0] === '}}') text += '}';
    else {
      if (text) parts.push({ kind: 'text', text });
      text = '';
      parts.push({ kind: 'placeholder', key: match[1] ?? '', raw: match[0] });
    }
  }
  text += template.slice(last);
  if (text) parts.push({ kind: 'text', text });
  return parts;
}

/** The placeholders of a tool's template that name nothing (empty when the template is valid). */
export function unknownPlaceholders(tool: TemplateTool): string[] {
  const parameters = new Set(Object.keys(tool.parameters.properties ?? {}));
  const unknown = parseTemplate(tool.prompt)
    .filter((part): part is Extract<TemplatePart, { kind: 'placeholder' }> => part.kind === 'placeholder')
    .map((part) => part.key)
    .filter((key) => !parameters.has(key) && key !== 'name' && !TOOL_KEYS.has(key));
  return [...new Set(unknown)];
}

/** Fills a tool's template with a call's arguments (see the rules above). */
export function fillTemplate(tool: TemplateTool, args: Record<string, unknown>): string {
  const properties = tool.parameters.properties ?? {};
  let usesParameters = false;
  const text = parseTemplate(tool.prompt)
    .map((part) => {
      if (part.kind === 'text') return part.text;
      const schema = properties[part.key];
      if (schema) {
        usesParameters = true;
        const value = Object.hasOwn(args, part.key) ? args[part.key] : 'default' in schema ? schema.default : undefined;
        return value === undefined ? part.raw : formatValue(value);
      }
      if (part.key === 'name' || part.key === 'tool.name') return tool.name;
      if (part.key === 'tool.description') return tool.description ?? '';
      return part.raw;
    })
    .join('');
  if (usesParameters || Object.keys(args).length === 0) return text;
  return `${text}\n\nArguments (JSON): ${JSON.stringify(args)}`;
}

function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

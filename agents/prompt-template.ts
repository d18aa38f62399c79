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
 * - A missing optional parameter renders its schema `default` when it has one. Without a default, the
 *   sentence holding it is left out when that sentence uses no argument the call gave; otherwise the
 *   placeholder reads `(not given)`. The agent never sees a literal `{param}` it could take for a value.
 * - Strings are inserted as they are; other values as JSON.
 * - A placeholder that is none of these is a load-time error naming the tool and the placeholder.
 * - A template that references no parameter gets the arguments appended as JSON, and arguments the
 *   template does not mention are appended as "Other arguments", so a call's arguments always reach
 *   the agent.
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

/**
 * The declared parameters a tool's template never mentions. Not an error (the arguments are appended as
 * JSON when the template names no parameter at all), but a parameter the prompt ignores is usually a
 * forgotten placeholder: editors show these as warnings.
 */
export function unusedParameters(tool: TemplateTool): string[] {
  const used = new Set(parseTemplate(tool.prompt).flatMap((part) => (part.kind === 'placeholder' ? [part.key] : [])));
  return Object.keys(tool.parameters.properties ?? {}).filter((key) => !used.has(key));
}

/** A filled template and what the filling noticed (for previews and editors). */
export interface FilledTemplate {
  text: string;
  /** Optional parameters without a default that the call left out: their sentence was dropped or reads "(not given)". */
  notGiven: string[];
  /** Placeholders that name no parameter and no tool field (kept as written; loading an agent rejects them). */
  unknown: string[];
  /** Arguments the template does not mention (appended as JSON so they still reach the agent). */
  unused: string[];
}

/** What a missing optional parameter without a default reads as when its sentence must stay. */
export const NOT_GIVEN = '(not given)';

type Piece = { kind: 'text'; text: string } | { kind: 'value'; text: string; given: boolean } | { kind: 'missing'; key: string };

/**
 * Fills a tool's template with a call's arguments (see the rules above) and reports what it noticed.
 *
 * @example
 * fillPromptTemplate(tool, { destination: 'Oslo' }).text
 * // 'Plan a trip to {destination}. Travel in {year}.' → 'Plan a trip to Oslo.'
 */
export function fillPromptTemplate(tool: TemplateTool, args: Record<string, unknown>): FilledTemplate {
  const properties = tool.parameters.properties ?? {};
  const mentioned = new Set<string>();
  const notGiven = new Set<string>();
  const unknown = new Set<string>();
  const pieces = parseTemplate(tool.prompt).map((part): Piece => {
    if (part.kind === 'text') return part;
    const schema = properties[part.key];
    if (schema) {
      mentioned.add(part.key);
      if (Object.hasOwn(args, part.key) && args[part.key] !== undefined)
        return { kind: 'value', text: formatValue(args[part.key]), given: true };
      if ('default' in schema && schema.default !== undefined) return { kind: 'value', text: formatValue(schema.default), given: false };
      notGiven.add(part.key);
      return { kind: 'missing', key: part.key };
    }
    if (part.key === 'name' || part.key === 'tool.name') return { kind: 'value', text: tool.name, given: false };
    if (part.key === 'tool.description') return { kind: 'value', text: tool.description ?? '', given: false };
    unknown.add(part.key);
    return { kind: 'text', text: part.raw };
  });
  const text = joinSentences(pieces);
  const unused = Object.keys(args).filter((key) => !mentioned.has(key) && args[key] !== undefined);
  const extra = Object.fromEntries(unused.map((key) => [key, args[key]]));
  const appended =
    unused.length === 0 ? text : `${text}\n\n${mentioned.size === 0 ? 'Arguments' : 'Other arguments'} (JSON): ${JSON.stringify(extra)}`;
  return { text: appended, notGiven: [...notGiven], unknown: [...unknown], unused };
}

/** Fills a tool's template with a call's arguments (see the rules above). */
export function fillTemplate(tool: TemplateTool, args: Record<string, unknown>): string {
  return fillPromptTemplate(tool, args).text;
}

/**
 * Joins the pieces, leaving out each sentence that holds a missing parameter and no argument the call
 * gave (a sentence ends after `.`, `!` or `?` followed by white space, or at a line break). A sentence
 * that also carries a given argument stays, with the missing one reading "(not given)".
 */
function joinSentences(pieces: Piece[]): string {
  const sentences: Piece[][] = [[]];
  for (const piece of pieces) {
    if (piece.kind !== 'text') {
      sentences.at(-1)?.push(piece);
      continue;
    }
    for (const chunk of piece.text.split(SENTENCE_END)) {
      if (chunk === '') continue;
      sentences.at(-1)?.push({ kind: 'text', text: chunk });
      if (SENTENCE_END_ONLY.test(chunk)) sentences.push([]);
    }
  }
  let text = '';
  let dropped = false;
  for (const sentence of sentences) {
    const missing = sentence.some((piece) => piece.kind === 'missing');
    const given = sentence.some((piece) => piece.kind === 'value' && piece.given);
    if (missing && !given) {
      // A sentence that ended its line gives back its line break, unless it took up the whole line.
      const last = sentence.at(-1);
      const ending = last?.kind === 'text' ? (/\s*$/.exec(last.text)?.[0] ?? '') : '';
      const startsLine = text === '' || text.endsWith('\n');
      text += ending.includes('\n') && !startsLine ? ending.slice(ending.indexOf('\n')) : '';
      dropped = true;
      continue;
    }
    text += sentence.map((piece) => (piece.kind === 'missing' ? NOT_GIVEN : piece.text)).join('');
  }
  // A dropped sentence can leave the space that led to it at the end of a line, or an empty first line.
  return dropped ? text.replace(/[ \t]+$/gm, '').replace(/^\n+/, '') : text;
}

/** Splits text after each sentence end, keeping the end (and its white space) with the sentence before. */
const SENTENCE_END = /(?<=[.!?]\s+|\n)(?=\S|\n)/;
const SENTENCE_END_ONLY = /([.!?]\s+|\n)$/;

function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

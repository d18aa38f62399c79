import { aggregateValues, type ArrayAggregates } from './aggregate-values.js';
import { inferShape, type Shape } from './infer-shape.js';

/** Who the summary is for: planning keeps it terse, user and debug show more of the sample. */
export type SummaryPurpose = 'planning' | 'user' | 'debug';

export interface SummarizeOptions {
  purpose?: SummaryPurpose;
  /** Most characters the summary may take as JSON (default 2,000). */
  maxChars?: number;
  /** Where the full payload was stored (a file path), to reference instead of pasting it. */
  storageRef?: string;
}

/** A compact stand-in for a large result: its shape, a sample and statistics, never the whole of it. */
export interface PayloadSummary {
  label: string;
  originalSize: { chars: number; items?: number; keys?: number };
  /** Whether the summary leaves part of the payload out. */
  truncated: boolean;
  schema: Shape;
  sample: unknown;
  aggregates: ArrayAggregates[];
  notes: string[];
  storageRef: string | null;
  /**
   * Set when the payload was a string holding JSON (an MCP tool's text result often is): `json-text`
   * for one JSON document, `json-lines` for one per line. Shape, sample and aggregates are then of the
   * parsed value; `originalSize.chars` is the string's length.
   */
  parsedFrom?: 'json-text' | 'json-lines';
}

const SAMPLE_ITEMS: Record<SummaryPurpose, number> = { planning: 3, user: 5, debug: 10 };
const STRING_PREVIEW = 200;

/**
 * Summarises a payload to fit `maxChars`: the inferred shape, a small sample (long strings cut), and
 * aggregates of its arrays (counts, numeric min/max/mean, value counts of small-cardinality strings).
 * Deterministic: the same payload always gives the same summary. Redact the payload before calling.
 *
 * @example
 * summarizePayload('customers', rows, { maxChars: 1500, storageRef: 'runs/t1/customers.json' })
 */
export function summarizePayload(label: string, received: unknown, options: SummarizeOptions = {}): PayloadSummary {
  const maxChars = options.maxChars ?? 2_000;
  const purpose = options.purpose ?? 'planning';
  const parsed = typeof received === 'string' ? parseJsonText(received) : undefined;
  const payload = parsed === undefined ? received : parsed.value;
  const text = parsed === undefined ? (JSON.stringify(payload) ?? 'undefined') : undefined;
  const chars = text?.length ?? (received as string).length;
  const items = Array.isArray(payload) ? payload.length : undefined;
  const keys = isRecord(payload) ? Object.keys(payload).length : undefined;
  const notes: string[] = [];
  if (parsed) {
    notes.push(
      parsed.format === 'json-text'
        ? 'a string holding JSON: shape, sample and aggregates are of the parsed JSON (in code, JSON.parse the string)'
        : 'a string holding one JSON value per line: shape, sample and aggregates are of the parsed lines as an array (in code, split the lines and JSON.parse each)',
    );
  }
  if (items !== undefined) notes.push(`array of ${items} items`);
  if (keys !== undefined) notes.push(`object with ${keys} keys`);
  if (options.storageRef)
    notes.push(
      "the full payload is stored at storageRef: in run_code, read it in pages with read({ ref: storageRef }) from '@capabilities/task-storage' and filter it there, rather than asking for it whole",
    );

  let sampleItems = SAMPLE_ITEMS[purpose];
  let schemaDepth = purpose === 'planning' ? 3 : 4;
  let aggregates = aggregateValues(payload);
  for (let attempt = 0; ; attempt++) {
    const sample = makeSample(payload, sampleItems, purpose === 'debug' ? STRING_PREVIEW * 2 : STRING_PREVIEW);
    const summary: PayloadSummary = {
      label,
      originalSize: { chars, ...(items !== undefined ? { items } : {}), ...(keys !== undefined ? { keys } : {}) },
      // A parsed string is never shown whole: the sample is of its parsed value.
      truncated: text === undefined || JSON.stringify(sample) !== text,
      schema: inferShape(payload, schemaDepth),
      sample,
      aggregates,
      notes,
      storageRef: options.storageRef ?? null,
      ...(parsed ? { parsedFrom: parsed.format } : {}),
    };
    const size = JSON.stringify(summary).length;
    if (size <= maxChars || attempt > 8) {
      if (size > maxChars) summary.notes = [...notes, `summary still ${size} chars after shrinking (limit ${maxChars})`];
      return summary;
    }
    // Shrink step by step, least useful part first.
    if (sampleItems > 1) sampleItems = Math.max(1, Math.floor(sampleItems / 2));
    else if (aggregates.some((a) => Object.keys(a.fields).length > 8)) aggregates = aggregates.map(trimFields);
    else if (schemaDepth > 1) schemaDepth--;
    else if (aggregates.length > 0) aggregates = aggregates.slice(0, aggregates.length - 1);
    else sampleItems = 0;
  }
}

/**
 * The JSON a string holds, when it holds an object or an array (one document, or one value per line
 * for two lines or more); otherwise undefined and the string is summarised as a string.
 */
function parseJsonText(value: string): { value: unknown; format: 'json-text' | 'json-lines' } | undefined {
  const trimmed = value.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  try {
    return { value: JSON.parse(trimmed) as unknown, format: 'json-text' };
  } catch {
    // Not one document: perhaps JSON Lines.
  }
  const lines = trimmed.split('\n').filter((line) => line.trim() !== '');
  if (lines.length < 2) return undefined;
  const values: unknown[] = [];
  for (const line of lines) {
    try {
      values.push(JSON.parse(line) as unknown);
    } catch {
      return undefined;
    }
  }
  return { value: values, format: 'json-lines' };
}

/** The first items of arrays (at any depth) and the start of long strings. */
function makeSample(value: unknown, items: number, chars: number, depth = 0): unknown {
  if (typeof value === 'string') return value.length > chars ? `${value.slice(0, chars)}… (${value.length} chars)` : value;
  if (Array.isArray(value)) {
    if (items === 0) return [];
    return value.slice(0, depth === 0 ? items : Math.min(items, 2)).map((item) => makeSample(item, items, chars, depth + 1));
  }
  if (isRecord(value)) {
    if (depth > 4) return '{…}';
    const entries = Object.entries(value);
    const shown = entries.slice(0, 25).map(([key, child]) => [key, makeSample(child, items, chars, depth + 1)] as const);
    return Object.fromEntries(entries.length > 25 ? [...shown, ['…', `${entries.length - 25} more keys`]] : shown);
  }
  return value;
}

function trimFields(aggregate: ArrayAggregates): ArrayAggregates {
  return { ...aggregate, fields: Object.fromEntries(Object.entries(aggregate.fields).slice(0, 8)) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

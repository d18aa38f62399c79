import { isJsonSchemaObject, type JsonSchema } from './json-schema.js';

/**
 * Result types learned from observed results, for MCP tools that declare no `outputSchema`: the
 * bridge records the shape of their JSON text results (`<outDir>/inferred/<module>.json`), the
 * compiler reads it at the next build and declares it as the function's result type. Only shapes are
 * stored, never values (no enums, no examples). Both sides import this file; neither imports the other.
 */

/** Where a function's inferred schema came from: calls of runs and direct calls, or `capabilities sample`. */
export type InferredResultSource = 'run' | 'sample';

/** A function's inferred result type, as the build puts it into its `FunctionSpec`. */
export interface InferredResult {
  /** JSON Schema of the parsed text (draft-07 keywords only; objects closed with `additionalProperties: false`). */
  schema: JsonSchema;
  /** How many results it was learned from. */
  samples: number;
  sources: InferredResultSource[];
}

/** One function's entry in the store. */
export interface InferredResultEntry extends InferredResult {
  updatedAt: string;
}

/** The file `<outDir>/inferred/<module>.json`: entries by the tool's original name (`toolName`). */
export type InferredResultsFile = Record<string, InferredResultEntry>;

/** The store's folder inside the build output; the build never deletes it (it is not a module's folder). */
export const INFERRED_RESULTS_DIR = 'inferred';

/** The largest store file read or written, in bytes: a bigger one is ignored (and rewritten from scratch). */
export const MAX_INFERRED_FILE_BYTES = 1024 * 1024;

/** The store file of a module, relative to `outDir`. */
export function inferredResultsFile(module: string): string {
  return `${INFERRED_RESULTS_DIR}/${module}.json`;
}

/**
 * Reads a store file's text; entries that are not well-formed are dropped (a hand-edited or
 * truncated file loses only those), and text that is not a JSON object reads as empty.
 */
export function parseInferredResults(text: string): InferredResultsFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return {};
  }
  if (!isJsonSchemaObject(data)) return {};
  const entries: [string, InferredResultEntry][] = [];
  for (const [toolName, entry] of Object.entries(data)) {
    if (isEntry(entry)) entries.push([toolName, entry]);
  }
  // fromEntries defines own properties, so a tool named "__proto__" cannot reach the prototype.
  return Object.fromEntries(entries) as InferredResultsFile;
}

function isEntry(value: unknown): value is InferredResultEntry {
  if (!isJsonSchemaObject(value)) return false;
  return (
    isJsonSchemaObject(value.schema) &&
    typeof value.samples === 'number' &&
    Number.isSafeInteger(value.samples) &&
    value.samples > 0 &&
    Array.isArray(value.sources) &&
    value.sources.every((source) => source === 'run' || source === 'sample') &&
    typeof value.updatedAt === 'string'
  );
}

import path from 'node:path';
import type { ResolvedConfig } from '../config/index.js';
import {
  MAX_INFERRED_FILE_BYTES,
  inferredResultsFile,
  parseInferredResults,
  readSmallFile,
  type CapabilitySpec,
  type FunctionSpec,
  type InferredResultsFile,
} from '../core/index.js';

/**
 * Gives functions whose results are text with no declared type (MCP tools without an output schema)
 * the result type learned from observed results (`inferredResult`, from `<outDir>/inferred/`), never
 * for a tool with side effects (`effects`, which the tool's source decides when it discovers it). Both are part of the spec, so its hash changes, and the module is
 * emitted again, when a sample changes the learned type.
 */
export async function applyInferredResults(specs: CapabilitySpec[], config: ResolvedConfig): Promise<CapabilitySpec[]> {
  return Promise.all(
    specs.map(async (spec) => {
      if (!spec.functions.some(learnsFromText)) return spec;
      const stored = await readInferredResults(config.outDir, spec.module);
      return { ...spec, functions: spec.functions.map((fn) => (learnsFromText(fn) ? withInferredResult(fn, stored) : fn)) };
    }),
  );
}

/** A function whose value is text with no declared type: its results may teach one. */
function learnsFromText(fn: FunctionSpec): boolean {
  return fn.resultKind === 'mcp-text' && fn.outputSchema === undefined;
}

function withInferredResult(fn: FunctionSpec, stored: InferredResultsFile): FunctionSpec {
  const entry = Object.hasOwn(stored, fn.toolName) ? stored[fn.toolName] : undefined;
  const rest = { ...fn };
  delete rest.inferredResult;
  return {
    ...rest,
    ...(entry === undefined || fn.effects === 'side-effects'
      ? {}
      : { inferredResult: { schema: entry.schema, samples: entry.samples, sources: entry.sources } }),
  };
}

/** The store of one module; empty when there is none, it is unreadable, not a regular file, or over the size cap. */
export async function readInferredResults(outDir: string, module: string): Promise<InferredResultsFile> {
  const file = path.join(outDir, inferredResultsFile(module));
  try {
    const text = await readSmallFile(file, MAX_INFERRED_FILE_BYTES);
    return text === undefined ? {} : parseInferredResults(text);
  } catch {
    return {};
  }
}

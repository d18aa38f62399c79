import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { McpServerConfig, ResolvedConfig } from '../config/index.js';
import {
  MAX_INFERRED_FILE_BYTES,
  inferredResultsFile,
  parseInferredResults,
  type CapabilitySpec,
  type FunctionSpec,
  type InferredResultsFile,
  type ToolAnnotations,
} from '../core/index.js';

/**
 * Gives MCP functions without an output schema what the build knows about their results: whether the
 * tool has side effects (`effects`, from `mcpServers.<name>.sideEffects` or the tool's annotations),
 * and the result type learned from observed results (`inferredResult`, from `<outDir>/inferred/`),
 * never for a tool with side effects. Both are part of the spec, so its hash changes, and the module is
 * emitted again, when a sample changes the learned type.
 */
export async function applyInferredResults(specs: CapabilitySpec[], config: ResolvedConfig): Promise<CapabilitySpec[]> {
  return Promise.all(
    specs.map(async (spec) => {
      const server = spec.source.kind === 'mcp' ? config.mcpServers[spec.source.server] : undefined;
      if (server === undefined || !spec.functions.some(learnsFromText)) return spec;
      const stored = await readInferredResults(config.outDir, spec.module);
      return { ...spec, functions: spec.functions.map((fn) => (learnsFromText(fn) ? withInferredResult(fn, server, stored) : fn)) };
    }),
  );
}

/** A function whose value is text with no declared type: its results may teach one. */
function learnsFromText(fn: FunctionSpec): boolean {
  return fn.resultKind === 'mcp-text' && fn.outputSchema === undefined;
}

function withInferredResult(fn: FunctionSpec, server: McpServerConfig, stored: InferredResultsFile): FunctionSpec {
  const effects = toolEffects(server, fn.toolName, fn.annotations);
  const entry = Object.hasOwn(stored, fn.toolName) ? stored[fn.toolName] : undefined;
  const rest = { ...fn };
  delete rest.effects;
  delete rest.inferredResult;
  return {
    ...rest,
    ...(effects === undefined ? {} : { effects }),
    ...(entry === undefined || effects === 'side-effects' ? {} : { inferredResult: { schema: entry.schema, samples: entry.samples, sources: entry.sources } }),
  };
}

/**
 * Whether a tool has side effects: the server's `sideEffects` setting when there is one (a list names
 * the tools that do; the rest do not), else its annotations — `readOnlyHint: true` reads only;
 * `readOnlyHint: false` (it changes its environment, destructively or not) or `destructiveHint: true`
 * has side effects — else not known.
 */
export function toolEffects(server: McpServerConfig, toolName: string, annotations: ToolAnnotations | undefined): FunctionSpec['effects'] {
  const configured = server.sideEffects;
  if (configured === true) return 'side-effects';
  if (configured === false) return 'read-only';
  if (Array.isArray(configured)) return configured.includes(toolName) ? 'side-effects' : 'read-only';
  if (annotations?.destructiveHint === true || annotations?.readOnlyHint === false) return 'side-effects';
  if (annotations?.readOnlyHint === true) return 'read-only';
  return undefined;
}

/** The store of one module; empty when there is none, it is unreadable, or it is over the size cap. */
export async function readInferredResults(outDir: string, module: string): Promise<InferredResultsFile> {
  const file = path.join(outDir, inferredResultsFile(module));
  try {
    if ((await stat(file)).size > MAX_INFERRED_FILE_BYTES) return {};
    return parseInferredResults(await readFile(file, 'utf8'));
  } catch {
    return {};
  }
}

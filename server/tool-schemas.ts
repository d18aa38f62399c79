import { z } from 'zod';

/** Inputs of the tools `agent-spaces serve` offers; their names and fields are public interface. */
export const searchToolsInput = {
  query: z.string().describe('Words describing what you need, e.g. "train schedule" (empty: list the modules)'),
  detail_level: z
    .enum(['names', 'summary', 'full'])
    .optional()
    .describe(
      'names: ids only; summary: + signature and one line; full: + the whole description and the TypeScript declaration with every nested parameter and result type (default summary)',
    ),
  limit: z.number().int().min(1).max(100).optional().describe('Most results (default 10)'),
};

export const getTypesInput = {
  modules: z
    .array(z.string())
    .min(1)
    .describe('Module names as in search results, e.g. ["train-schedule"] (with or without "@capabilities/")'),
};

export const executeCodeInput = {
  code: z
    .string()
    .min(1)
    .describe(
      'A TypeScript ES module: import from "@capabilities/<module>", `export default` the result (or a top-level `return`). console.log output is returned as logs.',
    ),
};

const runLog = z.object({ level: z.enum(['log', 'info', 'warn', 'error', 'debug']), message: z.string() });
const diagnostic = z.object({ line: z.number(), column: z.number(), code: z.number(), message: z.string() });

/** `execute_code`'s structured result: the run result of the sandbox. */
export const executeCodeOutput = {
  success: z.boolean(),
  result: z.unknown(),
  logs: z.array(runLog),
  error: z
    .object({
      name: z.string(),
      message: z.string(),
      code: z.string(),
      line: z.number().optional(),
      column: z.number().optional(),
      capability: z.string().optional(),
      function: z.string().optional(),
      diagnostics: z.array(diagnostic).optional(),
    })
    .passthrough()
    .optional(),
  timedOut: z.boolean(),
  calls: z.number(),
  durationMs: z.number(),
  /** The sandbox engine that ran the program and why it was chosen. */
  engine: z.object({ name: z.string(), reason: z.string() }).optional(),
  truncated: z.boolean().optional(),
  /** When the result was too large for one answer: where to read all of it, page by page (`resources/read`). */
  resultPages: z.object({ uri: z.string(), pages: z.number() }).optional(),
  /** With a store: the run's id there (its approvals and events are found by it, e.g. with agent-spaces approvals list). */
  runId: z.string().optional(),
};

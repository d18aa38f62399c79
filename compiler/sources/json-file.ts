import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CompileError, errorMessage, isJsonSchemaObject, type JsonSchema } from '../../core/index.js';
import type { RawCapability, RawFunction } from '../raw-capability.js';
import { emptyObjectSchema, normalizeToolSchema } from './normalize-schema.js';

const schemaObject = z.record(z.string(), z.unknown());
const rateLimit = z.strictObject({ requests: z.number().int().positive(), period: z.enum(['second', 'minute', 'hour', 'day']) });
const toolConfig = z.object({ requiresApproval: z.boolean().optional(), rateLimit: rateLimit.optional() });
const toolName = z.string().min(1);

const seedFunction = z.object({
  name: toolName,
  description: z.string().optional(),
  parameters: schemaObject.optional(),
  returns: schemaObject.optional(),
  requiresApproval: z.boolean().optional(),
  approvalMessage: z.string().optional(),
});

/** The seed's format: one capability with several functions. */
const implementation = z.string().min(1).optional();

const seedTool = z.object({
  name: toolName,
  implementation,
  description: z.string().optional(),
  version: z.string().optional(),
  functions: z.array(seedFunction).min(1),
  config: toolConfig.optional(),
});

/** A plain OpenAI-style tool (one function). `implementation` is our addition (see CapabilitySource). */
const singleTool = z.object({
  name: toolName,
  implementation,
  description: z.string().optional(),
  parameters: schemaObject.optional(),
  returns: schemaObject.optional(),
  config: toolConfig.optional(),
});

/** `{type: "function", function: {...}}`, as sent to chat-completions APIs. */
const wrappedTool = z.object({ type: z.literal('function'), function: singleTool });

/**
 * Loads a JSON tool file: the seed's `{name, functions: [...]}` format, a plain OpenAI-style
 * `{name, description, parameters}` tool, or its `{type: "function", function}` wrapper.
 */
export async function loadJsonToolFile(file: string, text?: string): Promise<RawCapability> {
  const content = text ?? (await readFile(file, 'utf8'));
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch (error) {
    throw new CompileError('INVALID_TOOL_FILE', `${file}: not valid JSON: ${errorMessage(error)}`);
  }
  const source = (implementation: string | undefined) => ({ kind: 'json' as const, path: file, ...(implementation ? { implementation } : {}) });
  if (isJsonSchemaObject(data) && Array.isArray(data.functions)) {
    const tool = parse(seedTool, data, file);
    return {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      ...(tool.version !== undefined ? { version: tool.version } : {}),
      source: source(tool.implementation),
      config: tool.config ?? {},
      functions: tool.functions.map((fn, index) => toFunction(fn, `${file}: functions.${index}`)),
    };
  }
  const single = isJsonSchemaObject(data) && data.type === 'function' ? parse(wrappedTool, data, file).function : parse(singleTool, data, file);
  return {
    name: single.name,
    ...(single.description !== undefined ? { description: single.description } : {}),
    source: source(single.implementation),
    config: single.config ?? {},
    functions: [toFunction(single, file)],
  };
}

function toFunction(fn: z.output<typeof seedFunction>, where: string): RawFunction {
  const inputSchema = normalizeToolSchema((fn.parameters as JsonSchema | undefined) ?? emptyObjectSchema());
  if (inputSchema.type !== 'object') {
    throw new CompileError('INVALID_TOOL_FILE', `${where}: parameters of "${fn.name}" must be an object schema (type: "object"), got type ${JSON.stringify(inputSchema.type)}`);
  }
  return {
    toolName: fn.name,
    ...(fn.description !== undefined ? { description: fn.description } : {}),
    inputSchema,
    ...(fn.returns !== undefined ? { outputSchema: normalizeToolSchema(fn.returns as JsonSchema) } : {}),
    resultKind: 'value',
    ...(fn.requiresApproval !== undefined ? { requiresApproval: fn.requiresApproval } : {}),
    ...(fn.approvalMessage !== undefined ? { approvalMessage: fn.approvalMessage } : {}),
  };
}

function parse<T>(schema: z.ZodType<T>, data: unknown, file: string): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`).join('\n');
  throw new CompileError('INVALID_TOOL_FILE', `${file}: not a tool definition (expected {name, functions: [...]} or {name, description, parameters}):\n${problems}`);
}

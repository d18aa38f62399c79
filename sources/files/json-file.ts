import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { rateLimitShape } from '../../config/index.js';
import { CompileError, errorMessage, isJsonSchemaObject, type JsonSchema } from '../../core/index.js';
import type { RawCapability, RawFunction } from '../../core/index.js';
import { checkKeys, joinPath, type KeyLevel } from './check-keys.js';
import { emptyObjectSchema, normalizeToolSchema } from './normalize-schema.js';
import { JSON_FILE_LEVELS } from './tool-key-levels.js';

// Unknown keys are found by `checkKeys` (with advice on where they belong), so these stay plain objects.
const schemaObject = z.record(z.string(), z.unknown());
const rateLimit = z.object(rateLimitShape);
const callers = z.enum(['code', 'direct', 'both']).optional();
const toolConfig = z.object({ requiresApproval: z.boolean().optional(), rateLimit: rateLimit.optional(), callers });
const toolName = z.string().min(1);
const implementation = z.string().min(1).optional();

const seedFunction = z.object({
  name: toolName,
  description: z.string().optional(),
  parameters: schemaObject.optional(),
  returns: schemaObject.optional(),
  requiresApproval: z.boolean().optional(),
  approvalMessage: z.string().optional(),
  callers,
});

/** The seed's format: one capability with several functions. */
const seedTool = z.object({
  name: toolName,
  implementation,
  description: z.string().optional(),
  version: z.string().optional(),
  functions: z.array(seedFunction).min(1),
  config: toolConfig.optional(),
});

/** A plain OpenAI-style tool: one function, which may carry its own approval flag. `implementation` is ours. */
const singleTool = seedFunction.extend({
  implementation,
  version: z.string().optional(),
  config: toolConfig.optional(),
  strict: z.boolean().optional(),
});

/** `{type: "function", function: {...}}`, as sent to chat-completions APIs. */
const wrappedTool = z.object({ type: z.literal('function'), function: singleTool });

const FORMATS =
  'a tool is {"name", "functions": [...]}, {"name", "description", "parameters"} or {"type": "function", "function": {...}}; a file holds one tool or an array of them';

/**
 * Loads a JSON tool file: the seed's `{name, functions: [...]}` format, a plain OpenAI-style
 * `{name, description, parameters}` tool, its `{type: "function", function}` wrapper, or an array of
 * these (as a chat-completions request lists its tools), each of which becomes its own capability.
 * Every key is checked: one that is unknown or misplaced fails the file, saying where it belongs.
 *
 * @param options.text the file's content, when already read; `options.name` how to name the file
 */
export async function loadJsonToolFile(path: string, options: { text?: string; name?: string } = {}): Promise<RawCapability[]> {
  const content = options.text ?? (await readFile(path, 'utf8'));
  // How the file is named in messages and in the spec: relative to the space's root when the build says so.
  const file = options.name ?? path;
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch (error) {
    throw new CompileError('INVALID_TOOL_FILE', `${file}: not valid JSON: ${errorMessage(error)}`);
  }
  if (!Array.isArray(data)) return [loadTool(data, file, file)];
  if (data.length === 0) throw new CompileError('INVALID_TOOL_FILE', `${file}: holds an empty array; list one tool or more (${FORMATS})`);
  return data.map((tool, index) => loadTool(tool, file, `${file}: [${index}]`));
}

/** One tool of a file; `where` names it in messages (the file, or the file and the tool's index in its array). */
function loadTool(data: unknown, file: string, where: string): RawCapability {
  if (!isJsonSchemaObject(data))
    throw new CompileError('INVALID_TOOL_FILE', `${where}: holds ${JSON.stringify(data)}, not a tool; ${FORMATS}`);
  const source = (implementation: string | undefined) => ({
    kind: 'json' as const,
    path: file,
    ...(implementation ? { implementation } : {}),
  });

  if (Array.isArray(data.functions)) {
    const tool = parse(seedTool, data, where, seedKeyProblems(data));
    return {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      ...(tool.version !== undefined ? { version: tool.version } : {}),
      source: source(tool.implementation),
      config: tool.config ?? {},
      functions: tool.functions.map((fn, index) => toFunction(fn, `${where}: functions[${index}]`)),
    };
  }
  const wrapped = data.type === 'function';
  const single = wrapped
    ? parse(wrappedTool, data, where, [...checkKeys(data, '', JSON_FILE_LEVELS.wrapper), ...singleKeyProblems(data.function, 'function')])
        .function
    : parse(singleTool, data, where, singleKeyProblems(data, ''));
  return {
    name: single.name,
    ...(single.description !== undefined ? { description: single.description } : {}),
    ...(single.version !== undefined ? { version: single.version } : {}),
    source: source(single.implementation),
    config: single.config ?? {},
    functions: [toFunction(single, wrapped ? `${where}: function` : where)],
  };
}

function seedKeyProblems(data: Record<string, unknown>): string[] {
  const problems = checkKeys(data, '', JSON_FILE_LEVELS.seed);
  (data.functions as unknown[]).forEach((fn, index) => {
    if (isJsonSchemaObject(fn)) problems.push(...checkKeys(fn, `functions[${index}]`, JSON_FILE_LEVELS.seedFunction));
  });
  return [...problems, ...configKeyProblems(data.config, 'config', JSON_FILE_LEVELS.seedConfig)];
}

function singleKeyProblems(tool: unknown, at: string): string[] {
  if (!isJsonSchemaObject(tool)) return [];
  return [
    ...checkKeys(tool, at, JSON_FILE_LEVELS.single),
    ...configKeyProblems(tool.config, joinPath(at, 'config'), JSON_FILE_LEVELS.singleConfig),
  ];
}

function configKeyProblems(config: unknown, at: string, level: KeyLevel): string[] {
  if (!isJsonSchemaObject(config)) return [];
  const problems = checkKeys(config, at, level);
  if (isJsonSchemaObject(config.rateLimit))
    problems.push(...checkKeys(config.rateLimit, joinPath(at, 'rateLimit'), JSON_FILE_LEVELS.rateLimit));
  return problems;
}

function toFunction(fn: z.output<typeof seedFunction>, where: string): RawFunction {
  const inputSchema = normalizeToolSchema((fn.parameters as JsonSchema | undefined) ?? emptyObjectSchema());
  if (inputSchema.type !== 'object') {
    throw new CompileError(
      'INVALID_TOOL_FILE',
      `${where}: parameters of "${fn.name}" must be an object schema (type: "object"), got type ${JSON.stringify(inputSchema.type)}`,
    );
  }
  return {
    toolName: fn.name,
    ...(fn.description !== undefined ? { description: fn.description } : {}),
    inputSchema,
    ...(fn.returns !== undefined ? { outputSchema: normalizeToolSchema(fn.returns as JsonSchema, { root: 'returns' }) } : {}),
    resultKind: 'value',
    ...(fn.requiresApproval !== undefined ? { requiresApproval: fn.requiresApproval } : {}),
    ...(fn.approvalMessage !== undefined ? { approvalMessage: fn.approvalMessage } : {}),
    ...(fn.callers !== undefined ? { callers: fn.callers } : {}),
  };
}

/** Parses `data`, failing with every problem: the misplaced keys found before, and what zod finds. */
function parse<T>(schema: z.ZodType<T>, data: unknown, file: string, keyProblems: string[]): T {
  const result = schema.safeParse(data);
  const problems = [...keyProblems];
  if (!result.success) {
    problems.push(
      ...result.error.issues.map(
        (issue) =>
          `${issue.path.reduce<string>((at, key) => joinPath(at, typeof key === 'symbol' ? String(key) : key), '') || '(root)'}: ${issue.message}`,
      ),
    );
  }
  if (problems.length === 0 && result.success) return result.data;
  // Without a name (or a wrapped function) the file may be in none of the formats: say what they are.
  const unrecognized =
    !result.success &&
    result.error.issues.some(
      (issue) => issue.path.length === 0 || (issue.path.length === 1 && ['name', 'function'].includes(String(issue.path[0]))),
    );
  const hint = unrecognized ? `\n(${FORMATS})` : '';
  const text = problems.length === 1 ? ` ${problems[0] ?? ''}` : `\n${problems.map((problem) => `  - ${problem}`).join('\n')}`;
  throw new CompileError('INVALID_TOOL_FILE', `${file}:${text}${hint}`, { details: { file, problems } });
}

import { z } from 'zod';
import { rateLimitShape } from '../../config/index.js';
import {
  CompileError,
  MAX_WRITTEN_SCHEMA_CHARS,
  TOOL_CALLERS,
  errorMessage,
  isJsonSchemaObject,
  jsonWrittenSize,
  type CapabilityOrigin,
  type JsonSchema,
  type SchemaInput,
  type ToolDefinition,
} from '../../core/index.js';
import type { RawCapability, RawFunction } from '../../core/index.js';
import { checkKeys, joinPath } from './check-keys.js';
import { emptyObjectSchema, normalizeToolSchema } from './normalize-schema.js';
import { DEFINE_TOOL_LEVELS } from './tool-key-levels.js';

/** Turns a `defineTool()` definition into a raw capability (zod schemas become JSON Schema). */
export function toolDefinitionToRaw(definition: ToolDefinition, source: CapabilityOrigin, module?: string): RawCapability {
  const where = source.kind === 'std' ? `std:${definition.name}` : `${'path' in source ? source.path : ''}#${definition.name}`;
  const problems = definitionProblems(definition);
  if (problems.length > 0) {
    const text = problems.length === 1 ? ` ${problems[0] ?? ''}` : `\n${problems.map((problem) => `  - ${problem}`).join('\n')}`;
    throw new CompileError('INVALID_TOOL_DEFINITION', `${where}:${text}`, { details: { problems } });
  }
  const functions: RawFunction[] = Object.entries(definition.functions).map(([key, fn]) => {
    const inputSchema =
      fn.parameters === undefined ? emptyObjectSchema() : toJsonSchema(fn.parameters, 'input', `${where}.${key}.parameters`);
    if (inputSchema.type !== 'object') {
      throw new CompileError(
        'INVALID_TOOL_DEFINITION',
        `${where}: parameters of "${key}" must be an object schema, got ${JSON.stringify(inputSchema.type ?? inputSchema)}`,
      );
    }
    return {
      toolName: key,
      ...(fn.description !== undefined ? { description: fn.description } : {}),
      inputSchema,
      // `{} as Trip[]` is `{}` here; its TypeScript type replaces this schema (see typescript-returns.ts).
      ...(fn.returns !== undefined ? { outputSchema: toJsonSchema(fn.returns as SchemaInput, 'output', `${where}.${key}.returns`) } : {}),
      resultKind: 'value',
      ...(fn.requiresApproval !== undefined ? { requiresApproval: fn.requiresApproval } : {}),
      ...(typeof fn.approvalMessage === 'string' ? { approvalMessage: fn.approvalMessage } : {}),
      ...(fn.callers !== undefined ? { callers: fn.callers } : {}),
    };
  });
  return {
    name: definition.name,
    ...(module !== undefined ? { module } : {}),
    ...(definition.description !== undefined ? { description: definition.description } : {}),
    ...(definition.version !== undefined ? { version: definition.version } : {}),
    source,
    config: definition.config ?? {},
    functions,
  };
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

function toJsonSchema(schema: SchemaInput, io: 'input' | 'output', where: string): JsonSchema {
  if (isZodSchema(schema)) {
    try {
      const json = z.toJSONSchema(schema, { io, target: 'draft-7', unrepresentable: 'any' }) as JsonSchema;
      delete json.$schema;
      return json;
    } catch (error) {
      throw new CompileError('INVALID_TOOL_DEFINITION', `${where}: zod schema cannot be expressed as JSON Schema: ${errorMessage(error)}`);
    }
  }
  if (typeof schema === 'boolean') return schema ? {} : { not: {} };
  if (!isJsonSchemaObject(schema)) throw new CompileError('INVALID_TOOL_DEFINITION', `${where}: not a schema`);
  // Objects the schema shares are written out by JSON at every use: measured before they are.
  if (jsonWrittenSize(schema) > MAX_WRITTEN_SCHEMA_CHARS) {
    throw new CompileError(
      'OUTPUT_TOO_LARGE',
      `${where}: the schema would be written out as more than ${MAX_WRITTEN_SCHEMA_CHARS} characters (it shares objects, which JSON repeats at every use); give a shared schema a name in $defs and refer to it with $ref`,
    );
  }
  // The schema objects of `as const` literals are frozen-like readonly data; copy before normalising.
  return normalizeToolSchema(JSON.parse(JSON.stringify(schema)) as JsonSchema, { root: io === 'input' ? 'parameters' : 'returns' });
}

/**
 * What is wrong with the option objects of a definition: unknown or misplaced keys (TypeScript does not
 * catch them, as `defineTool` is generic), approval flags that are not booleans, handlers that are not
 * functions.
 */
function definitionProblems(definition: ToolDefinition): string[] {
  const problems = checkKeys(definition as unknown as Record<string, unknown>, '', DEFINE_TOOL_LEVELS.tool);
  const functions: unknown = definition.functions;
  if (!isJsonSchemaObject(functions))
    return [...problems, `functions must be an object of functions ({ myFunction: { parameters, handler } })`];
  for (const [key, fn] of Object.entries(functions)) {
    const at = joinPath('functions', key);
    if (!isJsonSchemaObject(fn)) {
      problems.push(`${at} must be a function definition ({ parameters, handler })`);
      continue;
    }
    problems.push(...checkKeys(fn, at, DEFINE_TOOL_LEVELS.function));
    const shorthand = parameterMapProblem(fn.parameters, at);
    if (shorthand !== undefined) problems.push(shorthand);
    if (fn.requiresApproval !== undefined && typeof fn.requiresApproval !== 'boolean')
      problems.push(`${at}.requiresApproval must be true or false`);
    if (fn.callers !== undefined && !(TOOL_CALLERS as readonly unknown[]).includes(fn.callers))
      problems.push(`${at}.callers must be 'code', 'direct' or 'both' (got ${JSON.stringify(fn.callers)})`);
    if (typeof fn.handler !== 'function') problems.push(`${at}.handler must be a function (the code that performs the call)`);
  }
  const config: unknown = definition.config;
  if (config !== undefined) {
    if (!isJsonSchemaObject(config)) problems.push('config must be an object ({ requiresApproval, rateLimit })');
    else {
      problems.push(...checkKeys(config, 'config', DEFINE_TOOL_LEVELS.config));
      if (config.requiresApproval !== undefined && typeof config.requiresApproval !== 'boolean')
        problems.push('config.requiresApproval must be true or false');
      if (config.callers !== undefined && !(TOOL_CALLERS as readonly unknown[]).includes(config.callers))
        problems.push(`config.callers must be 'code', 'direct' or 'both' (got ${JSON.stringify(config.callers)})`);
      if (isJsonSchemaObject(config.rateLimit)) {
        problems.push(...checkKeys(config.rateLimit, 'config.rateLimit', DEFINE_TOOL_LEVELS.rateLimit));
        // Values too: the bridge trusts a built limit (a period it does not know would never refill).
        const parsed = z.object(rateLimitShape).safeParse(config.rateLimit);
        if (!parsed.success)
          problems.push(...parsed.error.issues.map((issue) => `config.rateLimit.${issue.path.join('.')}: ${issue.message}`));
      } else if (config.rateLimit !== undefined) {
        problems.push('config.rateLimit must be an object ({ requests, period, onLimit?, maxWaitMs?, maxQueue? })');
      }
    }
  }
  return problems;
}

/** Keywords whose value is an object in a JSON Schema of an object: a map holding one is taken as JSON Schema. */
const OBJECT_KEYWORDS = new Set([
  'type',
  'properties',
  '$ref',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'items',
  '$defs',
  'definitions',
  'patternProperties',
  'additionalProperties',
  'if',
  'then',
  'else',
  'propertyNames',
  'dependentSchemas',
  'unevaluatedProperties',
]);

/**
 * The seed's shorthand, `parameters: { station: { type: 'string', optional: true } }` (one schema per
 * parameter), is not JSON Schema, and defineTool's types refuse it; rather than guess, the build says
 * what to write: the same parameters as JSON Schema, every parameter not marked `optional: true` required.
 */
function parameterMapProblem(parameters: unknown, at: string): string | undefined {
  if (!isJsonSchemaObject(parameters) || isZodSchema(parameters)) return undefined;
  const entries = Object.entries(parameters);
  if (entries.length === 0 || entries.some(([key]) => OBJECT_KEYWORDS.has(key))) return undefined;
  const schemas = entries.filter((entry): entry is [string, JsonSchema] => isJsonSchemaObject(entry[1]));
  if (
    schemas.length !== entries.length ||
    !schemas.some(
      ([, schema]) => typeof schema.type === 'string' || typeof schema.optional === 'boolean' || typeof schema.required === 'boolean',
    )
  )
    return undefined;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, schema] of schemas) {
    const { optional, required: flag, ...rest } = schema;
    Object.defineProperty(properties, name, { value: rest, enumerable: true, writable: true, configurable: true }); // `__proto__` is a name too
    if (optional !== true && flag !== false) required.push(name);
  }
  const form = { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  return `${at}.parameters holds one schema per parameter (the seed's shorthand), which is not JSON Schema: write parameters: ${JSON.stringify(form)} (or a z.object)`;
}

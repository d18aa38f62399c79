import { z } from 'zod';
import { CompileError, errorMessage, isJsonSchemaObject, type CapabilitySource, type JsonSchema, type SchemaInput, type ToolDefinition } from '../../core/index.js';
import type { RawCapability, RawFunction } from '../raw-capability.js';
import { emptyObjectSchema, normalizeToolSchema } from './normalize-schema.js';

/** Turns a `defineTool()` definition into a raw capability (zod schemas become JSON Schema). */
export function toolDefinitionToRaw(definition: ToolDefinition, source: CapabilitySource, module?: string): RawCapability {
  const where = source.kind === 'std' ? `std:${definition.name}` : `${'path' in source ? source.path : ''}#${definition.name}`;
  const functions: RawFunction[] = Object.entries(definition.functions).map(([key, fn]) => {
    const inputSchema = fn.parameters === undefined ? emptyObjectSchema() : toJsonSchema(fn.parameters, 'input', `${where}.${key}.parameters`);
    if (inputSchema.type !== 'object') {
      throw new CompileError('INVALID_TOOL_DEFINITION', `${where}: parameters of "${key}" must be an object schema, got ${JSON.stringify(inputSchema.type ?? inputSchema)}`);
    }
    return {
      toolName: key,
      ...(fn.description !== undefined ? { description: fn.description } : {}),
      inputSchema,
      ...(fn.returns !== undefined ? { outputSchema: toJsonSchema(fn.returns, 'output', `${where}.${key}.returns`) } : {}),
      resultKind: 'value',
      ...(fn.requiresApproval !== undefined ? { requiresApproval: fn.requiresApproval } : {}),
      ...(typeof fn.approvalMessage === 'string' ? { approvalMessage: fn.approvalMessage } : {}),
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
  // The schema objects of `as const` literals are frozen-like readonly data; copy before normalising.
  return normalizeToolSchema(JSON.parse(JSON.stringify(schema)) as JsonSchema);
}

/**
 * Test support only: a minimal stand-in for the compiler's defineTool → CapabilitySpec step, so the
 * bridge's tests can run real ToolDefinitions without importing `compiler/` (which the bridge may not).
 */
import { z } from 'zod';
import type { CapabilitySpec, FunctionSpec, JsonSchema, SchemaInput, ToolDefinition } from '../../core/index.js';

export function capabilitySpecFromTool(tool: ToolDefinition, module: string = tool.name): CapabilitySpec {
  const functions: FunctionSpec[] = Object.entries(tool.functions).map(([key, definition]) => {
    const outputSchema = definition.returns === undefined ? undefined : toJsonSchema(definition.returns, 'output');
    return {
      name: key,
      toolName: key,
      ...(definition.description === undefined ? {} : { description: definition.description }),
      inputSchema: (definition.parameters === undefined ? undefined : toJsonSchema(definition.parameters, 'input')) ?? {
        type: 'object',
        properties: {},
      },
      ...(outputSchema === undefined ? {} : { outputSchema }),
      resultKind: 'value',
      ...(definition.requiresApproval === undefined ? {} : { requiresApproval: definition.requiresApproval }),
      ...(typeof definition.approvalMessage === 'string' ? { approvalMessage: definition.approvalMessage } : {}),
    };
  });
  return {
    module,
    namespace: module.replace(/-([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase()),
    source: { kind: 'std' },
    config: tool.config ?? {},
    functions,
  };
}

function toJsonSchema(schema: SchemaInput, io: 'input' | 'output'): JsonSchema | undefined {
  if (schema instanceof z.ZodType) return z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  if (typeof schema === 'boolean') return undefined;
  return schema as JsonSchema;
}

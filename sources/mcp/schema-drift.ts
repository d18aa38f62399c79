import type { Tool } from '@modelcontextprotocol/client';
import type { FunctionSpec } from '../../core/index.js';
import { hashToolSchema } from './connect.js';

/**
 * Compares a built function with the server's live tool of the same original name. Returns why calls
 * to it must not be made (the tool is gone, or a schema changed), or `undefined` when it is unchanged.
 */
export function findSchemaDrift(spec: FunctionSpec, tool: Tool | undefined): string | undefined {
  if (tool === undefined) return 'the server no longer has this tool';
  if (hashToolSchema(tool.inputSchema) !== hashToolSchema(spec.inputSchema)) return 'its input schema changed';
  if (hashOptional(tool.outputSchema) !== hashOptional(spec.outputSchema)) return 'its output schema changed';
  return undefined;
}

function hashOptional(schema: unknown): string | undefined {
  return schema === undefined ? undefined : hashToolSchema(schema);
}

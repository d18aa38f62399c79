import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FunctionSpec } from '../../core/index.js';
import { hashToolSchema } from '../../config/mcp-connect.js';

/**
 * Compares a server's live tool list with the functions built from it. Returns, per original tool name,
 * why calls to it must not be made (`missing`, or which schema changed); unchanged tools are absent.
 */
export function findSchemaDrift(functions: readonly FunctionSpec[], tools: readonly Tool[]): Map<string, string> {
  const live = new Map(tools.map((tool) => [tool.name, tool]));
  const drift = new Map<string, string>();
  for (const spec of functions) {
    const tool = live.get(spec.toolName);
    if (tool === undefined) {
      drift.set(spec.toolName, 'the server no longer has this tool');
    } else if (hashToolSchema(tool.inputSchema) !== hashToolSchema(spec.inputSchema)) {
      drift.set(spec.toolName, 'its input schema changed');
    } else if (hashOptional(tool.outputSchema) !== hashOptional(spec.outputSchema)) {
      drift.set(spec.toolName, 'its output schema changed');
    }
  }
  return drift;
}

function hashOptional(schema: unknown): string | undefined {
  return schema === undefined ? undefined : hashToolSchema(schema);
}

/**
 * Test support only: calls one function of a tool definition the way the in-process backend does
 * (zod parsing for defaults, then the handler with a context), without going through the bridge.
 */
import { z } from 'zod';
import type { ToolCallContext, ToolDefinition } from '../../core/index.js';

export async function callTool(
  tool: ToolDefinition,
  name: string,
  args: Record<string, unknown> = {},
  options: AbortSignal | { signal?: AbortSignal; runId?: string } = {},
): Promise<unknown> {
  const definition = tool.functions[name];
  if (definition === undefined) throw new Error(`tool ${tool.name} has no function ${name}`);
  const params = definition.parameters instanceof z.ZodType ? await definition.parameters.parseAsync(args) : args;
  const { signal, runId } = options instanceof AbortSignal ? { signal: options, runId: undefined } : options;
  const context: ToolCallContext = {
    runId: runId ?? 'test-run',
    capability: `std-${tool.name}`,
    function: name,
    signal: signal ?? new AbortController().signal,
  };
  return (definition.handler as (params: unknown, context: ToolCallContext) => unknown)(params, context);
}

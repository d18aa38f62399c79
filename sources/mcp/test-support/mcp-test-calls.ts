import type { Tool } from '@modelcontextprotocol/client';
import type { CapabilitySpec, FunctionSpec, JsonSchema, ResultMode } from '../../../core/index.js';
import type { BackendCall, CallProgress } from '../../../bridge/index.js';

/** A capability spec built from a server's live tool list, the way the compiler builds one. */
export function capabilityFromTools(module: string, server: string, tools: readonly Tool[]): CapabilitySpec {
  return {
    module,
    namespace: module.replace(/-([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase()),
    source: { kind: 'mcp', server },
    config: {},
    functions: tools.map((tool): FunctionSpec => ({
      name: tool.name.replace(/[-_.]([a-zA-Z0-9])/g, (_match, letter: string) => letter.toUpperCase()),
      toolName: tool.name,
      inputSchema: tool.inputSchema as JsonSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as JsonSchema }),
      resultKind: tool.outputSchema === undefined ? 'mcp-text' : 'mcp-structured',
    })),
  };
}

export interface CallOptions {
  resultMode?: ResultMode;
  signal?: AbortSignal;
  onProgress?: (progress: CallProgress) => void;
}

let nextCallId = 0;

/** A backend call of the function whose original tool name is `toolName`. */
export function callOf(
  capability: CapabilitySpec,
  toolName: string,
  args: Record<string, unknown> = {},
  options: CallOptions = {},
): BackendCall {
  const spec = capability.functions.find((fn) => fn.toolName === toolName);
  if (spec === undefined) throw new Error(`test setup: ${capability.module} has no tool "${toolName}"`);
  nextCallId += 1;
  return {
    capability,
    function: spec,
    args,
    resultMode: options.resultMode ?? 'value',
    callId: `call-${nextCallId}`,
    context: { runId: 'test-run', signal: options.signal ?? new AbortController().signal },
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  };
}

/** Whether a process with this id still exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

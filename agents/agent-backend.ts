import type { Backend, BackendCall } from '../bridge/index.js';
import { ToolCallError, errorMessage } from '../core/index.js';
import type { AgentRunner } from './run-agent.js';

/**
 * The bridge backend of `@capabilities/agent-*` modules: a call runs one headless session of the
 * module's agent and resolves to its answer text. Session events become progress; an aborted run
 * cancels the session.
 */
export function createAgentBackend(runners: Record<string, AgentRunner>): Backend {
  return {
    async call(call: BackendCall) {
      const target = { capability: call.capability.module, function: call.function.name };
      const runner = runners[call.capability.module];
      if (!runner)
        throw new ToolCallError(
          'SERVER_UNAVAILABLE',
          `no agent serves @capabilities/${call.capability.module}; rebuild the capabilities`,
          target,
        );
      let steps = 0;
      try {
        const answer = await runner.callTool(call.function.toolName, call.args, {
          signal: call.context.signal,
          onEvent: (event) => call.onProgress?.({ progress: ++steps, message: `${runner.agent.name}: ${event.type}` }),
        });
        return answer.text;
      } catch (error) {
        if (call.context.signal.aborted)
          throw new ToolCallError(
            'CANCELLED',
            `agent "${runner.agent.name}" tool "${call.function.toolName}": cancelled with its run`,
            target,
            { cause: error },
          );
        throw new ToolCallError(
          'TOOL_FAILED',
          `agent "${runner.agent.name}" tool "${call.function.toolName}" failed: ${errorMessage(error)}`,
          target,
          { cause: error },
        );
      }
    },
    async close() {
      await Promise.all(Object.values(runners).map((runner) => runner.close()));
    },
  };
}

import type { CallTracer } from '../../core/index.js';
import type { Tracer } from './tracer.js';

/**
 * One span per capability call, named as the GenAI conventions name a tool execution
 * (`execute_tool <module>.<function>`), with the capability, function, caller, outcome, size and
 * approval wait: never arguments or results.
 */
export function createCallTracer(tracer: Pick<Tracer, 'startSpan'>): CallTracer {
  return {
    startCall(call) {
      const id = `${call.capability}.${call.function}`;
      const span = tracer.startSpan(`execute_tool ${id}`, {
        ...(call.parent === undefined ? {} : { parent: call.parent }),
        kind: 'client',
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': id,
          'gen_ai.tool.type': 'function',
          'agent_spaces.capability': call.capability,
          'agent_spaces.function': call.function,
          ...(call.toolName === undefined ? {} : { 'agent_spaces.tool_name': call.toolName }),
          ...(call.caller === undefined ? {} : { 'agent_spaces.caller': call.caller }),
          ...(call.runId === undefined ? {} : { 'agent_spaces.run_id': call.runId }),
        },
      });
      let waitedMs = 0;
      return {
        ...(span.traceparent === undefined ? {} : { traceparent: span.traceparent }),
        approvalWaited(ms) {
          waitedMs += ms;
        },
        end(outcome) {
          span.setAttributes({
            'agent_spaces.outcome': outcome.ok ? 'ok' : (outcome.code ?? 'error'),
            ...(outcome.sizeBytes === undefined ? {} : { 'agent_spaces.result_bytes': outcome.sizeBytes }),
            ...(waitedMs > 0 ? { 'agent_spaces.approval_wait_ms': Math.round(waitedMs) } : {}),
          });
          span.end(
            outcome.ok ? undefined : { ...(outcome.code === undefined ? {} : { code: outcome.code }), message: outcome.code ?? 'failed' },
          );
        },
      };
    },
  };
}

import type { TraceSpan, Tracer } from '../bridge/index.js';
import type { BudgetUsage } from './budget.js';
import type { ModelReply } from './model-client.js';
import { readUsage } from './prices.js';

/** The spans of one task (when the space traces): the task, each step with its model request; code runs and calls hang below a step. */
export interface TaskSpans {
  /** Ends the previous step's span and starts this one's; returns its `traceparent`, the parent of the step's calls. */
  startStep(number: number): string | undefined;
  /** One model request of the current step as a GenAI `chat` span: the model and the tokens, never the messages. */
  traceChat(complete: () => Promise<ModelReply>): Promise<ModelReply>;
  end(success: boolean, usage: BudgetUsage): void;
}

export function startTaskSpans(tracer: Tracer, task: { taskId: string; model: string; parent: string | undefined }): TaskSpans {
  const taskSpan = tracer.startSpan('invoke_agent agent-spaces', {
    ...(task.parent === undefined ? {} : { parent: task.parent }),
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'agent-spaces',
      'gen_ai.request.model': task.model,
      'agent_spaces.task_id': task.taskId,
    },
  });
  let stepSpan: TraceSpan | undefined;
  return {
    startStep(number) {
      stepSpan?.end();
      stepSpan = tracer.startSpan(`agent_spaces.step ${number}`, {
        ...(taskSpan.traceparent === undefined ? {} : { parent: taskSpan.traceparent }),
        attributes: { 'agent_spaces.step': number },
      });
      return stepSpan.traceparent;
    },
    traceChat: (complete) => traceChat(tracer, task.model, stepSpan?.traceparent, complete),
    end(success, usage) {
      stepSpan?.end();
      taskSpan.setAttributes({
        'agent_spaces.steps': usage.steps,
        'gen_ai.usage.input_tokens': usage.tokens.input,
        'gen_ai.usage.output_tokens': usage.tokens.output,
      });
      taskSpan.end(success ? undefined : { code: 'TASK_FAILED', message: 'the task did not finish' });
    },
  };
}

async function traceChat(
  tracer: Tracer,
  model: string,
  parent: string | undefined,
  complete: () => Promise<ModelReply>,
): Promise<ModelReply> {
  const span = tracer.startSpan(`chat ${model}`, {
    ...(parent === undefined ? {} : { parent }),
    kind: 'client',
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model },
  });
  try {
    const reply = await complete();
    const tokens = readUsage(reply.usage);
    span.setAttributes({
      'gen_ai.usage.input_tokens': tokens.input,
      'gen_ai.usage.output_tokens': tokens.output,
      'agent_spaces.tool_calls': reply.message.tool_calls?.length ?? 0,
    });
    span.end();
    return reply;
  } catch (error) {
    span.end({ code: 'MODEL_ERROR', message: 'the model request failed' });
    throw error;
  }
}

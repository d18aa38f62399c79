import { randomUUID } from 'node:crypto';
import type { Message, Part, Role, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { errorMessage, isJsonSchemaObject } from '../../core/index.js';
import type { AgentRunner } from '../run-agent.js';

/**
 * Answers A2A messages with headless sessions of one agent. A message's text parts are the prompt; a
 * Tools-mode agent also takes a data part `{tool, arguments}` to call one of its tools. Each message
 * becomes a task: submitted → working → artifact (the answer) → completed, or failed / canceled.
 */
export async function createAgentExecutor(runner: AgentRunner): Promise<AgentExecutor> {
  const [{ Role, TaskState }, { AgentEvent }] = await Promise.all([import('@a2a-js/sdk'), import('@a2a-js/sdk/server')]);
  const running = new Map<string, AbortController>();
  return {
    async execute(requestContext: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId, userMessage } = requestContext;
      const controller = new AbortController();
      running.set(taskId, controller);
      const status = (state: TaskState, text?: string) =>
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, timestamp: new Date().toISOString(), message: text === undefined ? undefined : agentMessage(Role.ROLE_AGENT, text, taskId, contextId) }, metadata: {} }));
      try {
        if (!requestContext.task) {
          bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined }, artifacts: [], history: [userMessage], metadata: {} }));
        }
        status(TaskState.TASK_STATE_WORKING);
        const call = toolCall(userMessage);
        const options = { signal: controller.signal };
        const answer = call ? await runner.callTool(call.tool, call.arguments, options) : await runner.prompt(messageText(userMessage), options);
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: { artifactId: randomUUID(), name: 'answer', description: `${runner.agent.name}'s answer`, parts: [textPart(answer.text)], metadata: {}, extensions: [] },
            append: false,
            lastChunk: true,
            metadata: {},
          }),
        );
        status(TaskState.TASK_STATE_COMPLETED, answer.text);
      } catch (error) {
        if (controller.signal.aborted) status(TaskState.TASK_STATE_CANCELED, 'cancelled by the client');
        else status(TaskState.TASK_STATE_FAILED, errorMessage(error));
      } finally {
        running.delete(taskId);
      }
    },
    async cancelTask(taskId: string) {
      running.get(taskId)?.abort();
    },
  };
}

function toolCall(message: Message): { tool: string; arguments: Record<string, unknown> } | undefined {
  for (const part of message.parts) {
    if (part.content?.$case !== 'data') continue;
    const value: unknown = part.content.value;
    if (isJsonSchemaObject(value) && typeof value.tool === 'string') {
      return { tool: value.tool, arguments: isJsonSchemaObject(value.arguments) ? value.arguments : {} };
    }
  }
  return undefined;
}

function messageText(message: Message): string {
  return message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : part.content?.$case === 'data' ? JSON.stringify(part.content.value) : ''))
    .filter((text) => text !== '')
    .join('\n');
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(role: Role, text: string, taskId: string, contextId: string): Message {
  return { messageId: randomUUID(), contextId, taskId, role, parts: [textPart(text)], metadata: {}, extensions: [], referenceTaskIds: [] };
}

import { randomUUID } from 'node:crypto';
import type { Message, Part, Role, Task, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext, ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { errorMessage, isJsonSchemaObject, parseTraceparent } from '../../core/index.js';
import type { AgentRunner } from '../run-agent.js';

/** Takes each event of an A2A task's session (its planner trace), by A2A task id. */
export type A2ATraceRecorder = (taskId: string, event: { type: string }) => void;

/**
 * Answers A2A messages with headless sessions of one agent. A message's text parts are the prompt; a
 * Tools-mode agent also takes a data part `{tool, arguments}` to call one of its tools. Each message
 * becomes a task: submitted → working → artifact (the answer) → completed, or failed / canceled. With
 * `taskStore`, a message in a context that already has tasks continues it: the session gets the
 * context's earlier turns (read from the store, so from any replica or before a restart). With
 * `recordTrace`, every event of a task's session goes there too.
 */
export async function createAgentExecutor(
  runner: AgentRunner,
  options: { taskStore?: TaskStore; recordTrace?: A2ATraceRecorder } = {},
): Promise<AgentExecutor> {
  const [{ Role, TaskState }, { AgentEvent }] = await Promise.all([import('@a2a-js/sdk'), import('@a2a-js/sdk/server')]);
  const running = new Map<string, AbortController>();
  return {
    async execute(requestContext: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId, userMessage } = requestContext;
      const controller = new AbortController();
      running.set(taskId, controller);
      const status = (state: TaskState, text?: string) =>
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            status: {
              state,
              timestamp: new Date().toISOString(),
              message: text === undefined ? undefined : agentMessage(Role.ROLE_AGENT, text, taskId, contextId),
            },
            metadata: {},
          }),
        );
      try {
        if (!requestContext.task) {
          bus.publish(
            AgentEvent.task({
              id: taskId,
              contextId,
              status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
              artifacts: [],
              history: [userMessage],
              metadata: {},
            }),
          );
        }
        status(TaskState.TASK_STATE_WORKING);
        const call = toolCall(userMessage);
        const context = options.taskStore
          ? await earlierTurns(options.taskStore, { contextId, taskId, user: Role.ROLE_USER }, requestContext.context)
          : undefined;
        const { recordTrace } = options;
        // A caller's W3C trace context in the message's metadata continues into the session's spans.
        const traceparent =
          parseTraceparent(userMessage.metadata?.traceparent) === undefined ? undefined : String(userMessage.metadata?.traceparent);
        const runOptions = {
          signal: controller.signal,
          ...(context ? { context } : {}),
          ...(traceparent ? { traceparent } : {}),
          ...(recordTrace ? { onEvent: (event: { type: string }) => recordTrace(taskId, event) } : {}),
        };
        const answer = call
          ? await runner.callTool(call.tool, call.arguments, runOptions)
          : await runner.prompt(messageText(userMessage), runOptions);
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: randomUUID(),
              name: 'answer',
              description: `${runner.agent.name}'s answer`,
              parts: [textPart(answer.text)],
              metadata: {},
              extensions: [],
            },
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

/** Most earlier tasks of a context a session is given (the most recent ones). */
const EARLIER_TASKS_LIMIT = 20;

/** The context's earlier tasks as turns (`user:` its messages, `assistant:` its answer), oldest first. */
async function earlierTurns(
  store: TaskStore,
  current: { contextId: string; taskId: string; user: Role },
  callContext: ServerCallContext,
): Promise<string | undefined> {
  const { contextId, taskId } = current;
  const { tasks } = await store.list(
    {
      tenant: callContext.tenant ?? '',
      contextId,
      status: 0,
      pageSize: EARLIER_TASKS_LIMIT + 1,
      pageToken: '',
      statusTimestampAfter: undefined,
      includeArtifacts: true,
    },
    callContext,
  );
  const earlier = tasks
    .filter((task) => task.id !== taskId)
    .slice(0, EARLIER_TASKS_LIMIT)
    .reverse();
  const turns = earlier.flatMap((task) => turnsOf(task, current.user));
  return turns.length === 0 ? undefined : `Earlier messages of this conversation (oldest first):\n${turns.join('\n')}`;
}

function turnsOf(task: Task, user: Role): string[] {
  const asked = task.history.filter((message) => message.role === user).map((message) => `user: ${messageText(message)}`);
  const answer = task.artifacts
    .map((artifact) => artifact.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join(''))
    .filter((text) => text !== '')
    .join('\n');
  return answer === '' ? asked : [...asked, `assistant: ${answer}`];
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
    .map((part) =>
      part.content?.$case === 'text' ? part.content.value : part.content?.$case === 'data' ? JSON.stringify(part.content.value) : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(role: Role, text: string, taskId: string, contextId: string): Message {
  return { messageId: randomUUID(), contextId, taskId, role, parts: [textPart(text)], metadata: {}, extensions: [], referenceTaskIds: [] };
}

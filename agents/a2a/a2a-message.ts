import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';

/** A user message with one text part, as `sendMessage` takes it. */
export function userTextMessage(text: string, contextId = ''): Message {
  const part: Part = { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
  return {
    messageId: randomUUID(),
    contextId,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [part],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text parts of parts, joined by newlines. */
export function partsText(parts: Part[]): string {
  return parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/**
 * The answer a finished task or a direct message carries: its artifacts' text, else its status
 * message. Throws with the agent's own words when the task failed or was canceled.
 */
export function answerOf(result: Message | Task): string {
  if ('messageId' in result) return partsText(result.parts);
  const statusText = partsText(result.status?.message?.parts ?? []);
  const state = result.status?.state;
  if (state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED || state === TaskState.TASK_STATE_REJECTED) {
    throw new Error(`task ${result.id} ${TaskState[state].replace('TASK_STATE_', '').toLowerCase()}: ${statusText || 'no reason given'}`);
  }
  const artifacts = result.artifacts.map((artifact) => partsText(artifact.parts)).filter((text) => text !== '');
  return artifacts.length > 0 ? artifacts.join('\n') : statusText;
}

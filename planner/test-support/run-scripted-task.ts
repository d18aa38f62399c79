import { startScriptedModelServer, type Script, type ScriptedModelServer } from '../../test/support/scripted-model-server.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import type { Space } from '../../space/index.js';
import { executeTask } from '../execute-task.js';
import type { PlannerEvent } from '../planner-event.js';
import type { ExecuteTaskOptions, TaskResult } from '../task-types.js';

export const TEST_MODEL = 'gpt-4.1-mini';
export const TEST_KEY = 'test-key-0123456789';

export interface ScriptedTask {
  result: TaskResult;
  server: ScriptedModelServer;
  events: PlannerEvent[];
}

/** Runs a task on `space` (or one made from `options.cwd`) against a scripted model server through the real openai client. */
export async function runScriptedTask(
  space: Space | undefined,
  script: Script,
  options: ExecuteTaskOptions = {},
  task = 'the task',
): Promise<ScriptedTask> {
  const server = await startScriptedModelServer(script, { apiKey: TEST_KEY });
  const events: PlannerEvent[] = [];
  try {
    const result = await executeTask(task, {
      ...(space ? { space } : {}),
      runDir: await makeTempDir('planner-run'),
      trace: false,
      ...options,
      model: { baseURL: server.baseURL, model: TEST_MODEL, apiKey: TEST_KEY, ...options.model },
      onEvent: (event) => {
        events.push(event);
        options.onEvent?.(event);
      },
    });
    return { result, server, events };
  } finally {
    await server.close();
  }
}

/** The parsed content of the tool message answering `callId` in a recorded request. */
export function toolAnswer(server: ScriptedModelServer, requestIndex: number, callId: string): Record<string, unknown> {
  const message = server.chatRequests()[requestIndex]?.messages.find((m) => m.role === 'tool' && m.tool_call_id === callId);
  if (!message || typeof message.content !== 'string') throw new Error(`request ${requestIndex} has no answer to ${callId}`);
  return JSON.parse(message.content) as Record<string, unknown>;
}

// An A2A caller's trace context: a message's metadata.traceparent reaches the agent session's task
// (executeTask's `traceparent`, the parent of its span); one that is not W3C trace context is ignored.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { loadAgent } from '../load-agent.js';
import { createAgentRunner } from '../run-agent.js';
import { serveA2A } from './serve-a2a.js';

describe('serveA2A and trace context', () => {
  it("hands a message's metadata.traceparent to the session, and drops one that is malformed", async () => {
    const dir = await makeTempDir('a2a-trace');
    await writeFile(
      path.join(dir, 'tsagent.json'),
      JSON.stringify({
        metadata: {
          name: 'Trace Desk',
          version: '1.0.0',
          description: 'Traced',
          skills: [{ id: 'trace', name: 'Trace', description: 'Answers' }],
        },
      }),
    );
    const seen: (string | undefined)[] = [];
    const runner = createAgentRunner(await loadAgent(dir), {
      outDir: path.join(dir, 'out'),
      executeTask: async (task, options) => {
        seen.push(options.traceparent);
        return { success: true, finalSummary: `done: ${task}` };
      },
    });
    const server = await serveA2A([runner], { port: 0 });
    try {
      const client = await new ClientFactory().createFromUrl(server.origin);
      const send = async (id: string, metadata: Record<string, unknown>) =>
        (await client.sendMessage({
          tenant: '',
          message: {
            messageId: id,
            contextId: '',
            taskId: '',
            role: Role.ROLE_USER,
            parts: [{ content: { $case: 'text', value: 'hello' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
            metadata,
            extensions: [],
            referenceTaskIds: [],
          },
          configuration: undefined,
          metadata: {},
        })) as Task;
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      expect((await send('m1', { traceparent })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect((await send('m2', { traceparent: '00-not-a-trace-01' })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(seen).toEqual([traceparent, undefined]);
    } finally {
      await server.close();
      await runner.close();
    }
  });
});

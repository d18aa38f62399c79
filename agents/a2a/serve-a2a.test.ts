// A2A discovery at the well-known root: a client given only the server's origin finds a lone agent.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { loadAgent } from '../load-agent.js';
import { createAgentRunner } from '../run-agent.js';
import { serveA2A } from './serve-a2a.js';

describe('serveA2A with one agent', () => {
  it('publishes its card at /.well-known/agent-card.json, so the SDK client finds it from the origin alone', async () => {
    const dir = await makeTempDir('a2a-single');
    await writeFile(
      path.join(dir, 'tsagent.json'),
      JSON.stringify({
        metadata: {
          name: 'Echo Desk',
          version: '0.3.0',
          description: 'Echoes',
          skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the message' }],
        },
      }),
    );
    // The session is a plain function of the task: this test is about discovery, not the planner.
    const runner = createAgentRunner(await loadAgent(dir), {
      outDir: path.join(dir, 'out'),
      executeTask: async (task) => ({ success: true, finalSummary: `echo: ${task}` }),
    });
    const server = await serveA2A([runner], { port: 0 });
    try {
      const card = (await (await fetch(`${server.origin}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
      expect(card).toMatchObject({
        name: 'Echo Desk',
        version: '0.3.0',
        supportedInterfaces: [{ url: `${server.origin}/agents/echo-desk/`, protocolBinding: 'JSONRPC' }],
      });
      expect((card.skills as { id: string }[]).map((skill) => skill.id)).toEqual(['echo']);

      const client = await new ClientFactory().createFromUrl(server.origin);
      const task = (await client.sendMessage({
        tenant: '',
        message: {
          messageId: 'm1',
          contextId: '',
          taskId: '',
          role: Role.ROLE_USER,
          parts: [{ content: { $case: 'text', value: 'hello' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
          metadata: {},
          extensions: [],
          referenceTaskIds: [],
        },
        configuration: undefined,
        metadata: {},
      })) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'echo: hello' });
    } finally {
      await server.close();
      await runner.close();
    }
  });
});

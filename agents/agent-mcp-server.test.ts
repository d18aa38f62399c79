import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/support/temp-dir.js';
import { createAgentMcpServer } from './agent-mcp-server.js';
import { loadAgent } from './load-agent.js';
import { createAgentRunner } from './run-agent.js';

describe('createAgentMcpServer', () => {
  it('cancels the session when the client cancels the call', async () => {
    const dir = await makeTempDir('agent-cancel');
    const tool = { name: 'wait', description: 'Waits', parameters: { type: 'object', properties: {} }, prompt: 'Wait.' };
    await writeFile(path.join(dir, 'tsagent.json'), JSON.stringify({ metadata: { name: 'Waiter', version: '3.0.0', tools: [tool] } }));
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    let sessionAborted: () => void = () => undefined;
    const aborted = new Promise<void>((resolve) => (sessionAborted = resolve));
    const runner = createAgentRunner(await loadAgent(dir), {
      outDir: path.join(dir, 'out'),
      // A session that runs until it is aborted.
      executeTask: (_task, options) =>
        new Promise((_resolve, reject) => {
          started();
          options.signal?.addEventListener('abort', () => {
            sessionAborted();
            reject(new Error('aborted'));
          });
        }),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await (await createAgentMcpServer(runner)).connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'Waiter', version: '3.0.0' });
      const controller = new AbortController();
      const call = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
      await running;
      controller.abort();
      await expect(call).rejects.toThrow();
      await aborted; // resolves only when the session saw the cancellation
    } finally {
      await client.close();
      await runner.close();
    }
  });
});

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { serveMcp } from '../server/index.js';
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

  it("serves a 2026-07-28 client over HTTP (no session): progress on the request's stream, and a cancelled call cancels the session", async () => {
    const dir = await makeTempDir('agent-modern');
    const tool = { name: 'wait', description: 'Waits', parameters: { type: 'object', properties: {} }, prompt: 'Wait.' };
    await writeFile(path.join(dir, 'tsagent.json'), JSON.stringify({ metadata: { name: 'Waiter', version: '3.0.0', tools: [tool] } }));
    let sessionAborted: () => void = () => undefined;
    const aborted = new Promise<void>((resolve) => (sessionAborted = resolve));
    const runner = createAgentRunner(await loadAgent(dir), {
      outDir: path.join(dir, 'out'),
      // A session that reports one event, then runs until it is aborted.
      executeTask: (_task, options) =>
        new Promise((_resolve, reject) => {
          options.onEvent?.({ type: 'search-run' });
          options.signal?.addEventListener('abort', () => {
            sessionAborted();
            reject(new Error('aborted'));
          });
        }),
    });
    const running = await serveMcp(() => createAgentMcpServer(runner), { http: { port: 0 } });
    const client = new ModernClient({ name: 'modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url ?? '')));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getServerVersion()).toMatchObject({ name: 'Waiter', version: '3.0.0' });
      const controller = new AbortController();
      let started: () => void = () => undefined;
      const progressed = new Promise<void>((resolve) => (started = resolve));
      const call = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal, onprogress: () => started() });
      await progressed;
      controller.abort();
      await expect(call).rejects.toThrow();
      await aborted; // resolves only when the session saw the cancellation
    } finally {
      await client.close();
      await running.close();
      await runner.close();
    }
  });
});

/**
 * `@capabilities/session` through `serve --http` with a real MCP client (@modelcontextprotocol/client,
 * 2025-11-25 sessions over Streamable HTTP): one session's programs build on what its earlier ones
 * kept, another session sees none of it and cannot reach it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSpace, type RunningServer } from '../../server/serve.js';
import { makeTempDir } from '../../test/support/temp-dir.js';

const COUNT_VISIT = `import { get, set } from '@capabilities/session';
const visits = ((await get({ key: 'visits' })) as number | null) ?? 0;
await set({ key: 'visits', value: visits + 1 });
export default visits + 1;`;

async function connect(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'session-state-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

async function execute(client: Client, code: string): Promise<unknown> {
  const result = await client.callTool({ name: 'execute_code', arguments: { code } });
  return result.structuredContent;
}

describe('@capabilities/session in serve', () => {
  let running: RunningServer;
  beforeAll(async () => {
    const root = await makeTempDir('session-serve');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    running = await serveSpace({ cwd: root, http: { port: 0 } });
  }, 120_000);
  afterAll(async () => {
    await running?.close();
  });

  it("keeps a session's state for its later execute_code calls, and shows another session none of it", async () => {
    const a = await connect(running.url ?? '');
    const b = await connect(running.url ?? '');
    try {
      expect(a.transport.sessionId).toBeDefined();
      expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
      expect(await execute(a.client, COUNT_VISIT)).toMatchObject({ success: true, result: 1 });
      expect(await execute(a.client, COUNT_VISIT)).toMatchObject({ success: true, result: 2 });
      expect(
        await execute(
          a.client,
          "import { set } from '@capabilities/session';\nexport default (await set({ key: 'note', value: 'for A only' })).keys;",
        ),
      ).toMatchObject({ success: true, result: 2 });
      // Session B starts from nothing, and its keys are its own however it names them.
      expect(await execute(b.client, COUNT_VISIT)).toMatchObject({ success: true, result: 1 });
      const probe = `import { get, list } from '@capabilities/session';
export default {
  keys: (await list({})).map((entry) => entry.key),
  note: await get({ key: 'note' }),
  byName: await get({ key: ${JSON.stringify(`mcp:${a.transport.sessionId ?? ''}/note`)} }),
};`;
      expect(await execute(b.client, probe)).toMatchObject({ success: true, result: { keys: ['visits'], note: null, byName: null } });
      expect(await execute(a.client, COUNT_VISIT)).toMatchObject({ success: true, result: 3 });
    } finally {
      await a.client.close();
      await b.client.close();
    }
  }, 120_000);
});

// The code-mode MCP server over a real space (no capabilities but the standard library), driven by
// the SDK client through an in-memory transport.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpace, type Space } from '../space/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { createAgentSpacesMcpServer } from './create-mcp-server.js';
import { MAX_LOG_NOTIFICATIONS } from './progress-sender.js';
import { createRunRouter } from './run-router.js';
import { MAX_RESULT_CHARS } from './tool-text.js';

describe('createAgentSpacesMcpServer', () => {
  let space: Space;
  let client: Client;

  beforeAll(async () => {
    const root = await makeTempDir('mcp-server');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    const router = createRunRouter();
    space = await createSpace({ cwd: root, isolation: 'in-process', onEvent: router.onEvent, approvalHandler: router.approve });
    const server = await createAgentSpacesMcpServer(space, router, { name: 'agent-spaces', version: '0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 't', version: '1' });
    await client.connect(clientSide);
  }, 120_000);

  afterAll(async () => {
    await client.close();
    await space.close();
  });

  it('caps structuredContent as well as the text when a run logs a lot, and links the whole text to read in pages', async () => {
    const run = await client.callTool({
      name: 'execute_code',
      arguments: { code: "for (let i = 0; i < 1000; i++) console.log(String(i).padEnd(1000, '.'));\nexport default 'done';" },
    });
    const [first, link] = run.content as { type: string; text?: string; uri?: string }[];
    expect(first?.text).toMatch(/\[page 1 of 16: the whole result is \d+ characters\. Read the other pages with resources\/read/);
    expect(link).toMatchObject({ type: 'resource_link', uri: expect.stringMatching(/^agent-spaces:\/\/results\/.+\/1$/) });
    const last = await client.readResource({ uri: (link?.uri ?? '').replace(/\/1$/, '/16') });
    expect((last.contents[0] as { text: string }).text).toMatch(/999\.+\nResult: "done"\n\(0 capability calls/);
    const structured = run.structuredContent as { success: boolean; truncated?: boolean; logs: unknown[] };
    expect(structured).toMatchObject({ success: true, result: 'done', truncated: true, resultPages: { uri: link?.uri, pages: 16 } });
    expect(JSON.stringify(structured).length).toBeLessThanOrEqual(MAX_RESULT_CHARS + 1024);
    expect(structured.logs.length).toBeGreaterThan(0);
  });

  it('sends the log lines of a run as progress while it runs, in order with its calls, when the client asks for progress', async () => {
    const progress: string[] = [];
    const code =
      "import { json } from '@capabilities/std';\nconsole.log('first');\nconst parsed = await json.parse({ text: '[1,2]' });\nconsole.warn('second', JSON.stringify(parsed));\nexport default 'done';";
    const run = await client.callTool({ name: 'execute_code', arguments: { code } }, undefined, {
      onprogress: (notification) => progress.push(notification.message ?? ''),
    });
    expect(run.structuredContent).toMatchObject({ success: true, result: 'done' });
    expect(progress).toEqual(['log: first', 'std-json.parse done', 'log [warn]: second [1,2]']);
    // Without a progress token nothing is sent, and the result still holds every line.
    const quiet = await client.callTool({ name: 'execute_code', arguments: { code } });
    expect(quiet.structuredContent).toMatchObject({
      success: true,
      logs: [expect.objectContaining({ message: 'first' }), expect.objectContaining({ message: 'second [1,2]' })],
    });
  });

  it('sends at most MAX_LOG_NOTIFICATIONS log lines as progress, the last saying the rest are in the result', async () => {
    const progress: string[] = [];
    const code = `for (let i = 0; i < ${MAX_LOG_NOTIFICATIONS + 50}; i++) console.log('line', i);\nexport default 'done';`;
    await client.callTool({ name: 'execute_code', arguments: { code } }, undefined, {
      onprogress: (notification) => progress.push(notification.message ?? ''),
    });
    expect(progress).toHaveLength(MAX_LOG_NOTIFICATIONS);
    expect(progress[0]).toBe('log: line 0');
    expect(progress.at(-1)).toBe('log: … the rest of the log is in the result');
  });

  it('refuses module names that are not built modules, path-like ones included', async () => {
    const types = await client.callTool({
      name: 'get_types',
      arguments: { modules: ['../../../etc', '@capabilities/../capabilities/std-fs', 'std-fs/../../x'] },
    });
    expect(types.isError).toBe(true);
    expect((types.content as { text: string }[])[0]?.text).toMatch(/^unknown modules "\.\.\/\.\.\/\.\.\/etc"/);
  });
});

// `agent-spaces serve` driven by real MCP clients: the SDK Client over stdio and Streamable HTTP, and
// the MCP Inspector CLI.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeExampleSpace, REPO } from '../support/example-space.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');

function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

describe('agent-spaces serve (stdio)', () => {
  let space: { root: string; env: Record<string, string> };
  let client: Client;
  let transport: StdioClientTransport;
  let approvals: string[];

  beforeAll(async () => {
    space = await makeExampleSpace('serve');
    approvals = [];
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--cwd', space.root],
      env: { ...space.env, PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    client = new Client({ name: 'e2e', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      approvals.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client.close();
  });

  it('introduces itself and lists the three code-mode tools', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'agent-spaces' });
    expect(client.getInstructions()).toContain('execute_code');
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['execute_code', 'get_types', 'search_tools']);
    expect(tools.tools.find((tool) => tool.name === 'execute_code')?.outputSchema).toBeDefined();
  });

  it('searches, returns declarations, and runs code against them', async () => {
    const search = await client.callTool({ name: 'search_tools', arguments: { query: 'train schedule', detail_level: 'summary' } });
    const found = JSON.parse(textOf(search)) as { matches: { id: string; signature: string }[] };
    expect(found.matches[0]?.id).toBe('train-schedule.getSchedule');

    const types = await client.callTool({ name: 'get_types', arguments: { modules: ['@capabilities/train-schedule'] } });
    expect(textOf(types)).toContain('getSchedule(params?: GetScheduleParams)');

    const unknown = await client.callTool({ name: 'get_types', arguments: { modules: ['nope'] } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/unknown module "nope"; known: .*train-schedule/);

    const run = await client.callTool({
      name: 'execute_code',
      arguments: {
        code: `import { trainSchedule } from '@capabilities/train-schedule';\nconst trips = await trainSchedule.getSchedule({});\nconsole.log('trips', trips.length);\nexport default trips.filter((t) => t.hour < 12).map((t) => t.id);`,
      },
    });
    expect(run.isError).toBeFalsy();
    expect(run.structuredContent).toMatchObject({ success: true, result: ['IC-101', 'RE-204', 'IC-105', 'S-310', 'RE-208'], calls: 1 });
    expect(textOf(run)).toContain('trips 8');
  });

  it('returns type errors first, as an error result, without running', async () => {
    const run = await client.callTool({
      name: 'execute_code',
      arguments: { code: `import { getWeather } from '@capabilities/get-weather';\nexport default await getWeather({ city: 'Tokyo' });` },
    });
    expect(run.isError).toBe(true);
    expect(textOf(run)).toMatch(/^Type errors \(the program did not run\):\n {2}line 2:/);
    expect(run.structuredContent).toMatchObject({ success: false, calls: 0, error: { code: 'TYPE_CHECK_FAILED' } });
  });

  it('asks the user through elicitation for calls that require approval', async () => {
    const run = await client.callTool({
      name: 'execute_code',
      arguments: {
        code: `import { crm } from '@capabilities/crm';\nconst t = await crm.createTicket({ customerId: 'c-002', subject: 'Printer on fire', priority: 'high' });\nexport default t.id;`,
      },
    });
    expect(run.structuredContent).toMatchObject({ success: true, result: 't-001' });
    expect(approvals).toEqual([expect.stringContaining('Create high ticket for customer c-002: "Printer on fire"?')]);
  });

  it('sends progress notifications for each capability call, before the result', async () => {
    // Observed on the transport: what the server sent and in which order. (The SDK client itself may drop
    // a progress notification that arrives in the same chunk as the response, which is the client's race.)
    const seen: string[] = [];
    const deliver = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message && message.method === 'notifications/progress')
        seen.push(`progress: ${String((message.params as { message?: string }).message)}`);
      else if ('result' in message && (message.result as { structuredContent?: unknown }).structuredContent !== undefined)
        seen.push('result');
      deliver?.(message);
    };
    try {
      await client.callTool(
        {
          name: 'execute_code',
          arguments: {
            code: `import { getWeather } from '@capabilities/get-weather';\nexport default await Promise.all(['London', 'Tokyo'].map((location) => getWeather({ location })));`,
          },
        },
        undefined,
        { onprogress: () => undefined },
      );
    } finally {
      transport.onmessage = deliver;
    }
    expect(seen).toEqual(['progress: get-weather.getWeather done', 'progress: get-weather.getWeather done', 'result']);
  });

  it('cancels a run when the client cancels the request, and keeps serving', async () => {
    const controller = new AbortController();
    const pending = client.callTool(
      { name: 'execute_code', arguments: { code: 'let i = 0;\nwhile (true) i++;\nexport default i;' } },
      undefined,
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 300);
    await expect(pending).rejects.toThrow(/abort/i);
    const next = await client.callTool({ name: 'execute_code', arguments: { code: 'export default 40 + 2;' } });
    expect(next.structuredContent).toMatchObject({ success: true, result: 42 });
  });
});

describe('agent-spaces serve --http', () => {
  let server: ResultPromise;
  let url: string;
  let space: { root: string; env: Record<string, string> };

  beforeAll(async () => {
    space = await makeExampleSpace('serve-http');
    server = execa(process.execPath, [BIN, 'serve', '--http', '0', '--token', 'let-me-in', '--cwd', space.root], {
      env: space.env,
      reject: false,
    });
    url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      server.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(seen);
        if (match?.[1]) resolve(match[1]);
      });
      void server.then(() => reject(new Error(`serve exited: ${seen}`)));
    });
  });

  afterAll(async () => {
    server.kill('SIGTERM');
    await server;
  });

  it('binds 127.0.0.1, requires the bearer token, and serves a client without elicitation', async () => {
    const denied = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(denied.status).toBe(401);

    const client = new Client({ name: 'e2e-http', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer let-me-in' } } }),
    );
    const run = await client.callTool({
      name: 'execute_code',
      arguments: {
        code: `import { crm } from '@capabilities/crm';\ntry { await crm.createTicket({ customerId: 'c-001', subject: 'x' }); export default 'created'; } catch (e) { export default (e as { code: string }).code; }`,
      },
    });
    // `export default` inside a block is not valid: the model gets a clear error back.
    expect(run.isError).toBe(true);
    const approval = await client.callTool({
      name: 'execute_code',
      arguments: {
        code: `import { crm } from '@capabilities/crm';\nlet code = 'created';\ntry { await crm.createTicket({ customerId: 'c-001', subject: 'x' }); } catch (e) { code = (e as { code: string }).code + ': ' + (e as Error).message; }\nexport default code;`,
      },
    });
    expect(approval.structuredContent).toMatchObject({ success: true, result: expect.stringMatching(/^APPROVAL_DENIED: .*elicitation/) });
    await client.close();
  });
});

describe('MCP Inspector CLI', () => {
  it('lists the tools and calls execute_code', async () => {
    const space = await makeExampleSpace('inspector');
    const inspector = path.join(REPO, 'node_modules/.bin/mcp-inspector');
    const list = await execa(inspector, ['--cli', process.execPath, BIN, 'serve', '--cwd', space.root, '--method', 'tools/list'], {
      env: space.env,
      timeout: 60_000,
    });
    expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual([
      'execute_code',
      'get_types',
      'search_tools',
    ]);
    const call = await execa(
      inspector,
      [
        '--cli',
        process.execPath,
        BIN,
        'serve',
        '--cwd',
        space.root,
        '--method',
        'tools/call',
        '--tool-name',
        'execute_code',
        '--tool-arg',
        "code=import { getSchedule } from '@capabilities/train-schedule'; export default (await getSchedule({})).length;",
      ],
      { env: space.env, timeout: 60_000 },
    );
    expect((JSON.parse(call.stdout) as { structuredContent: unknown }).structuredContent).toMatchObject({
      success: true,
      result: 8,
      calls: 1,
    });
  });
});

/**
 * Search-and-invoke (`serve --mode invoke`): a client with no code support — the SDK v1 client over
 * Streamable HTTP, which is all it uses here — completes a task with search_tools and call_tool alone:
 * finds a customer, reads the argument schema of the ticket function, creates the ticket (approval asked
 * by elicitation). Code-only functions are not offered and are refused if named; tools/list stays two tools.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/support/temp-dir.js';
import { REPO } from '../test/support/example-space.js';
import { serveSpace, type RunningServer } from './serve.js';

let root: string;
let invoke: RunningServer;

beforeAll(async () => {
  root = await makeTempDir('serve-invoke');
  const crm = path.relative(root, path.join(REPO, 'capabilities/crm.ts')).split(path.sep).join('/');
  await mkdir(path.join(root, 'tools'));
  await writeFile(
    path.join(root, 'tools/reports.json'),
    JSON.stringify({
      name: 'reports',
      implementation: './reports.mjs',
      functions: [
        { name: 'exportAll', description: 'Export every customer record', callers: 'code' },
        { name: 'summary', description: 'A summary of the customer records' },
      ],
    }),
  );
  await writeFile(
    path.join(root, 'tools/reports.mjs'),
    "export const exportAll = () => 'everything';\nexport const summary = () => 'three customers';\n",
  );
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [crm, 'tools/*.json'] }));
  invoke = await serveSpace({ cwd: root, http: { port: 0 }, mode: 'invoke' });
}, 120_000);
afterAll(async () => {
  await invoke?.close();
});

async function connect(url: string): Promise<{ client: LegacyClient; asked: string[] }> {
  const asked: string[] = [];
  const client = new LegacyClient({ name: 'no-code', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { approve: true } };
  });
  await client.connect(new LegacyHttpTransport(new URL(url)));
  return { client, asked };
}

function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

interface Match {
  id: string;
  inputSchema?: { properties?: Record<string, unknown>; required?: string[] };
}

describe('serve --mode invoke', () => {
  it('lets a client without code complete a task with search_tools and call_tool', async () => {
    const { client, asked } = await connect(invoke.url ?? '');
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['call_tool', 'search_tools']);

      // 1. Find the customer.
      const found = JSON.parse(textOf(await client.callTool({ name: 'search_tools', arguments: { query: 'search customers' } }))) as {
        matches: Match[];
      };
      const search = found.matches.find((match) => match.id === 'crm.searchCustomers');
      expect(search?.inputSchema?.properties).toHaveProperty('query');
      const customers = JSON.parse(
        textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'crm.searchCustomers', arguments: { query: 'Acme' } } })),
      ) as { id: string; name: string }[];
      expect(customers.length).toBeGreaterThan(0);
      const customer = customers[0];

      // 2. Read how to create a ticket, and create it (the person approves).
      const ticketSearch = JSON.parse(textOf(await client.callTool({ name: 'search_tools', arguments: { query: 'create ticket' } }))) as {
        matches: Match[];
      };
      const create = ticketSearch.matches.find((match) => match.id === 'crm.createTicket');
      expect(create?.inputSchema?.required).toEqual(expect.arrayContaining(['customerId', 'subject']));
      const created = await client.callTool({
        name: 'call_tool',
        arguments: { name: 'crm.createTicket', arguments: { customerId: customer?.id, subject: 'invoice missing' } },
      });
      expect(created.isError).toBeFalsy();
      expect(JSON.parse(textOf(created))).toMatchObject({ customerId: customer?.id, subject: 'invoice missing' });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('invoice missing');

      // A mistake comes back as the bridge's error, for the client to correct.
      const wrong = await client.callTool({
        name: 'call_tool',
        arguments: { name: 'crm.createTicket', arguments: { subject: 'no customer' } },
      });
      expect(wrong.isError).toBe(true);
      expect(textOf(wrong)).toMatch(/^INVALID_ARGUMENTS: .*customerId/);
    } finally {
      await client.close();
    }
  });

  it('does not offer code-only functions, and refuses them when named', async () => {
    const { client } = await connect(invoke.url ?? '');
    try {
      const found = JSON.parse(textOf(await client.callTool({ name: 'search_tools', arguments: { query: 'customer records' } }))) as {
        matches: Match[];
      };
      const ids = found.matches.map((match) => match.id);
      expect(ids).toContain('reports.summary');
      expect(ids).not.toContain('reports.exportAll');
      const refused = await client.callTool({ name: 'call_tool', arguments: { name: 'reports.exportAll', arguments: {} } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe(
        "CALLER_NOT_ALLOWED: reports.exportAll may not be called directly (callers: 'code'): call it from a program run in the sandbox (execute_code / run code)",
      );
      expect(JSON.parse(textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'reports.summary' } })))).toBe(
        'three customers',
      );
    } finally {
      await client.close();
    }
  });

  it('gives at most a page of schemas per search', async () => {
    const { client } = await connect(invoke.url ?? '');
    try {
      const found = JSON.parse(
        textOf(await client.callTool({ name: 'search_tools', arguments: { query: 'customer ticket records export summary', limit: 100 } })),
      ) as { matches: Match[] };
      expect(found.matches.length).toBeGreaterThan(0);
      expect(found.matches.length).toBeLessThanOrEqual(20);
      expect(found.matches.every((match) => match.inputSchema !== undefined)).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe('serve --mode both', () => {
  it('offers the code tools and call_tool together', async () => {
    const both = await serveSpace({ cwd: root, http: { port: 0 }, mode: 'both' });
    const { client } = await connect(both.url ?? '');
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
        'call_tool',
        'execute_code',
        'get_types',
        'search_tools',
      ]);
      const run = await client.callTool({
        name: 'execute_code',
        arguments: { code: "import { exportAll } from '@capabilities/reports';\nexport default await exportAll();" },
      });
      expect(run.structuredContent).toMatchObject({ success: true, result: 'everything' });
      expect(JSON.parse(textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'reports.summary' } })))).toBe(
        'three customers',
      );
    } finally {
      await client.close();
      await both.close();
    }
  }, 60_000);
});

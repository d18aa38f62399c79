// `agent-spaces serve` (the real bin) over stdio to clients of both protocol eras: the SDK v2 client
// pinned to 2026-07-28, the SDK v1 client (2025-11-25), and the MCP Inspector CLI 0.15 (2025-11-25, no
// elicitation: approvals are denied with a reason) over stdio and Streamable HTTP.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/support/temp-dir.js';
import { REPO } from '../test/support/example-space.js';
import { serveSpace, type RunningServer } from './serve.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');
const INSPECTOR = path.join(REPO, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
const ONE_TICKET =
  "import { crm } from '@capabilities/crm';\nexport default (await crm.createTicket({ customerId: 'c-001', subject: 'by stdio' })).customerId;";
const LOG_THEN_TICKET =
  "import { crm } from '@capabilities/crm';\nconsole.log('before');\nexport default (await crm.createTicket({ customerId: 'c-001', subject: 'by stdio' })).customerId;";
const BIG = `export default Array.from({ length: 9000 }, (_, i) => 'line ' + i + ' ' + 'x'.repeat(16)).join('\\n');`;

let root: string;

beforeAll(async () => {
  root = await makeTempDir('serve-clients');
  const crm = path.relative(root, path.join(REPO, 'capabilities/crm.ts')).split(path.sep).join('/');
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [crm] }));
});

const serveArgs = (): string[] => [BIN, 'serve', '--cwd', root];

function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((block) => block.text ?? '')
    .join('\n');
}

describe('serve on stdio', () => {
  it('answers a 2026-07-28 client (SDK v2): approvals as input_required rounds, answered by its elicitation handler', async () => {
    const asked: string[] = [];
    const client = new Client(
      { name: 'modern', version: '1' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { approve: true } };
    });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: serveArgs(), stderr: 'pipe' }));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const progress: string[] = [];
      const run = await client.callTool(
        { name: 'execute_code', arguments: { code: LOG_THEN_TICKET } },
        { onprogress: (notification) => progress.push(notification.message ?? '') },
      );
      expect(run.structuredContent).toMatchObject({ success: true, result: 'c-001', calls: 1 });
      expect(asked).toEqual([expect.stringContaining('Create medium ticket for customer c-001')]);
      // Progress on the request's own stream, the run's log line first.
      expect(progress).toContain('log: before');
    } finally {
      await client.close();
    }
  });

  it('answers a 2025-11-25 client (SDK v1) with elicitation, approved and declined', async () => {
    const decisions = [true, false];
    const client = new LegacyClient({ name: 'legacy', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () =>
      decisions.shift() ? { action: 'accept', content: { approve: true } } : { action: 'decline' },
    );
    await client.connect(new LegacyStdioTransport({ command: process.execPath, args: serveArgs(), stderr: 'pipe' }));
    try {
      const approved = await client.callTool({ name: 'execute_code', arguments: { code: ONE_TICKET } });
      expect(approved.structuredContent).toMatchObject({ success: true, result: 'c-001' });
      const declined = await client.callTool({ name: 'execute_code', arguments: { code: ONE_TICKET } });
      expect(declined.structuredContent).toMatchObject({ success: false, error: { message: expect.stringMatching(/declined/) } });
    } finally {
      await client.close();
    }
  });
});

describe('MCP Inspector CLI 0.15 (2025-11-25)', () => {
  let running: RunningServer;

  beforeAll(async () => {
    running = await serveSpace({ cwd: root, http: { port: 0 } });
  });

  afterAll(async () => {
    await running.close();
  });

  async function inspect(target: string[], args: string[]): Promise<Record<string, unknown>> {
    const result = await execa(process.execPath, [INSPECTOR, '--cli', ...target, ...args], { timeout: 120_000, reject: false });
    if (result.exitCode !== 0)
      throw new Error(`the MCP Inspector CLI failed (exit ${String(result.exitCode)}):\n${result.stderr}\n${result.stdout}`);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  it('lists and calls the tools over stdio; an approval it cannot answer is denied with the reason', async () => {
    const stdio = [process.execPath, ...serveArgs()];
    const list = await inspect(stdio, ['--method', 'tools/list']);
    expect((list.tools as { name: string }[]).map((tool) => tool.name).sort()).toEqual(['execute_code', 'get_types', 'search_tools']);
    const call = await inspect(stdio, ['--method', 'tools/call', '--tool-name', 'execute_code', '--tool-arg', `code=${ONE_TICKET}`]);
    expect(call.isError).toBe(true);
    expect(textOf(call)).toMatch(/does not support elicitation/);
  });

  it('calls execute_code over Streamable HTTP and reads a large result page by its link', async () => {
    const http = [running.url ?? '', '--transport', 'http'];
    const call = await inspect(http, ['--method', 'tools/call', '--tool-name', 'execute_code', '--tool-arg', `code=${BIG}`]);
    const link = (call.content as { type: string; uri?: string }[]).find((block) => block.type === 'resource_link');
    expect(link?.uri).toMatch(/^agent-spaces:\/\/results\//);
    expect(call.structuredContent).toMatchObject({ success: true, truncated: true });
    // A new session per Inspector command: the page belongs to the session that made it.
    const read = await execa(process.execPath, [INSPECTOR, '--cli', ...http, '--method', 'resources/read', '--uri', link?.uri ?? ''], {
      timeout: 120_000,
      reject: false,
    });
    expect(`${read.stdout}${read.stderr}`).toMatch(/belongs to another session/);
  });
});

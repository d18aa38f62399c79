// Redaction and summarisation on a space with a test-only capability that returns credentials and a
// large table, plus an MCP server whose env holds a secret.
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpace, type Space } from '../space/index.js';
import { REPO } from '../test/support/example-space.js';
import { callReply } from '../test/support/scripted-model-server.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { runScriptedTask, toolAnswer } from './test-support/run-scripted-task.js';

const LIVE_KEY = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e';
const ENV_SECRET = 'stations-env-secret-77f3a1';

let space: Space;
let root: string;

beforeAll(async () => {
  root = await makeTempDir('planner-secrets');
  const core = path.relative(root, path.join(REPO, 'core/define-tool.js')).split(path.sep).join('/');
  await writeFile(
    path.join(root, 'vault.ts'),
    `import { defineFunction, defineTool } from '${core}';
const rows = Array.from({ length: 3000 }, (_, i) => ({ id: 'inv-' + i, customer: ['Acme', 'Globex', 'Initech'][i % 3], amount: (i % 97) + 0.5, paid: i % 4 === 0 }));
export const vault = defineTool({
  name: 'vault',
  description: 'Test-only: service credentials and the invoice ledger',
  functions: {
    getCredentials: defineFunction({ description: 'Returns the billing service credentials', handler: () => ({ service: 'billing', apiKey: '${LIVE_KEY}', hint: 'rotate ${LIVE_KEY} monthly' }) }),
    listInvoices: defineFunction({ description: 'Returns every invoice of the ledger', handler: () => rows }),
    exportInvoices: defineFunction({ description: 'Returns the ledger as JSON text, as an MCP tool would', handler: () => JSON.stringify({ count: rows.length, rows }) }),
  },
});
`,
  );
  await writeFile(
    path.join(root, 'agent-spaces.config.json'),
    JSON.stringify({
      capabilities: ['vault.ts'],
      mcpServers: {
        stations: {
          command: process.execPath,
          args: ['--import', 'tsx', path.join(REPO, 'examples/mcp-server/stations-server.ts')],
          cwd: REPO,
          env: { STATIONS_TOKEN: ENV_SECRET },
        },
      },
    }),
  );
  space = await createSpace({ cwd: root });
  const build = await space.build();
  expect(build.errors).toEqual([]);
});
afterAll(async () => {
  await space.close();
});

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe('executeTask secrets and large results', () => {
  it('never lets a secret a tool returned (or a configured server secret) reach the prompt, logs, trace, events, result or disk', async () => {
    const runDir = await makeTempDir('planner-secret-run');
    const trace = path.join(runDir, 'trace.jsonl');
    const leakyCode = `import { vault } from '@capabilities/vault';\nconst c = await vault.getCredentials({});\nconsole.log('key is ' + c.apiKey + ' / ' + c.hint);\nexport default c;`;
    const { result, server, events } = await runScriptedTask(
      space,
      [
        callReply('call_tool', { name: 'vault.getCredentials', arguments: {} }),
        callReply('run_code', { code: leakyCode }),
        callReply('finish', { summary: `The key is ${LIVE_KEY}`, result: { apiKey: LIVE_KEY } }),
      ],
      { runDir, trace, context: `The stations token is ${ENV_SECRET}.` },
    );
    expect(result.success).toBe(true);
    const answer = toolAnswer(server, 1, 'call_1_1') as { value: { apiKey: string; hint: string; service: string } };
    expect(answer.value).toEqual({ service: 'billing', apiKey: '[REDACTED]', hint: 'rotate [REDACTED: API key (sk-…)] monthly' });

    const everything = [
      JSON.stringify(server.requests.map((request) => request.body)),
      JSON.stringify(result),
      JSON.stringify(events),
      ...(await Promise.all((await filesUnder(runDir)).map((file) => readFile(file, 'utf8')))),
    ];
    expect(existsSync(trace)).toBe(true);
    for (const text of everything) {
      expect(text).not.toContain(LIVE_KEY);
      expect(text).not.toContain(ENV_SECRET);
    }
    expect(result.finalSummary).toBe('The key is [REDACTED: API key (sk-…)]');
    expect(JSON.stringify(server.chatRequests()[0]?.messages[1])).toContain('The stations token is [REDACTED: env STATIONS_TOKEN].');
  });

  it('summarises a large result, stores it whole under the run folder and keeps the context small', async () => {
    const runDir = await makeTempDir('planner-large-run');
    const { result, server, events } = await runScriptedTask(
      space,
      [callReply('call_tool', { name: 'vault.listInvoices', arguments: {} }), callReply('finish', { summary: 'ledger read' })],
      { runDir },
    );
    const answer = toolAnswer(server, 1, 'call_1_1') as {
      ok: boolean;
      value?: unknown;
      summary: {
        storageRef: string;
        originalSize: { items: number };
        aggregates: { fields: Record<string, { values?: Record<string, number>; min?: number; max?: number }> }[];
      };
    };
    expect(answer.ok).toBe(true);
    expect(answer.value).toBeUndefined();
    expect(answer.summary.originalSize.items).toBe(3000);
    expect(answer.summary.aggregates[0]?.fields.customer?.values).toEqual({ Acme: 1000, Globex: 1000, Initech: 1000 });
    expect(answer.summary.aggregates[0]?.fields.amount).toMatchObject({ min: 0.5, max: 96.5 });
    expect(answer.summary.storageRef.startsWith(runDir)).toBe(true);
    const stored = JSON.parse(await readFile(answer.summary.storageRef, 'utf8')) as unknown[];
    expect(stored).toHaveLength(3000);
    const content = server.chatRequests()[1]?.messages.at(-1)?.content as string;
    expect(content.length).toBeLessThan(2_500);
    expect(JSON.stringify(server.chatRequests()[1]?.messages).length).toBeLessThan(9_000);
    expect(events.find((event) => event.type === 'summary-created')).toMatchObject({
      label: 'vault.listInvoices',
      storageRef: answer.summary.storageRef,
    });
    expect(result.rawOutputs[0]).toMatchObject({ ok: true, summary: { storageRef: answer.summary.storageRef } });
  });

  it("lets the task's code page through a stored result (task-storage), and only its own task's results", async () => {
    const runDir = await makeTempDir('planner-storage-run');
    const pageThrough = (ref: string) => `import { list, read } from '@capabilities/task-storage';
const ref = ${JSON.stringify(ref)};
const totals: Record<string, number> = {};
let pages = 0;
let count = 0;
for (let offset: number | null = 0; offset !== null; pages++) {
  const page = await read({ ref, offset, limit: 1_000 });
  for (const row of page.value as { customer: string; amount: number }[]) totals[row.customer] = (totals[row.customer] ?? 0) + row.amount;
  count += (page.value as unknown[]).length;
  offset = page.nextOffset ?? null;
}
const text = await read({ ref: (await list())[1]?.ref ?? '', parse: true, path: 'rows', offset: 2999 });
const forged = await read({ ref: '/etc/passwd' }).then(() => 'read', (error: { code: string }) => error.code);
export default { count, pages, totals, last: text.value, total: text.total, forged, stored: (await list()).map((entry) => entry.label) };`;
    // The model writes its code from the storageRef the summary gave it.
    const script = (request: { messages: { role: string; content?: unknown }[] }, index: number) => {
      if (index === 0) return callReply('call_tool', { name: 'vault.listInvoices', arguments: {} });
      if (index === 1) return callReply('call_tool', { name: 'vault.exportInvoices', arguments: {} });
      if (index === 2) {
        const first = request.messages.find((message) => message.role === 'tool');
        const ref = (JSON.parse(String(first?.content)) as { summary: { storageRef: string } }).summary.storageRef;
        return callReply('run_code', { code: pageThrough(ref) });
      }
      return callReply('finish', { summary: 'ledger totals' });
    };
    const { result, server } = await runScriptedTask(space, script, { runDir, tools: { allow: (entry) => entry.module === 'vault' } });
    const exported = toolAnswer(server, 2, 'call_2_1') as { summary: { parsedFrom?: string; aggregates: { path: string }[] } };
    expect(exported.summary.parsedFrom).toBe('json-text');
    expect(exported.summary.aggregates.map((aggregate) => aggregate.path)).toEqual(['$.rows']);
    const answer = toolAnswer(server, 3, 'call_3_1') as {
      ok: boolean;
      value: {
        count: number;
        pages: number;
        totals: Record<string, number>;
        last: unknown[];
        total: number;
        forged: string;
        stored: string[];
      };
    };
    expect(answer.ok).toBe(true);
    const rows = Array.from({ length: 3000 }, (_, i) => ({ customer: ['Acme', 'Globex', 'Initech'][i % 3] ?? '', amount: (i % 97) + 0.5 }));
    const expected: Record<string, number> = {};
    for (const row of rows) expected[row.customer] = (expected[row.customer] ?? 0) + row.amount;
    expect(answer.value).toMatchObject({
      count: 3000,
      totals: expected,
      total: 3000,
      forged: 'FORBIDDEN',
      stored: ['vault.listInvoices', 'vault.exportInvoices'],
    });
    expect(answer.value.pages).toBe(3);
    expect(answer.value.last).toEqual([{ id: 'inv-2999', customer: 'Initech', amount: 89.5, paid: false }]);
    expect(result.success).toBe(true);

    // Another task cannot read this one's results, even knowing the ref.
    const ref = (toolAnswer(server, 1, 'call_1_1') as { summary: { storageRef: string } }).summary.storageRef;
    const other = await runScriptedTask(space, [
      callReply('call_tool', { name: 'task-storage.read', arguments: { ref } }),
      callReply('finish', { summary: 'no' }),
    ]);
    expect(toolAnswer(other.server, 1, 'call_1_1')).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN', message: expect.stringContaining('is not a result stored by this task; it has stored none') },
    });
  }, 120_000);
});

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
  },
});
`,
  );
  await writeFile(
    path.join(root, 'agent-spaces.config.json'),
    JSON.stringify({
      capabilities: ['vault.ts'],
      mcpServers: { stations: { command: process.execPath, args: ['--import', 'tsx', path.join(REPO, 'examples/mcp-server/stations-server.ts')], cwd: REPO, env: { STATIONS_TOKEN: ENV_SECRET } } },
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
    expect(answer.value).toEqual({ service: 'billing', apiKey: '[REDACTED]', hint: 'rotate [REDACTED] monthly' });

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
    expect(result.finalSummary).toBe('The key is [REDACTED]');
    expect(JSON.stringify(server.chatRequests()[0]?.messages[1])).toContain('The stations token is [REDACTED].');
  });

  it('summarises a large result, stores it whole under the run folder and keeps the context small', async () => {
    const runDir = await makeTempDir('planner-large-run');
    const { result, server, events } = await runScriptedTask(space, [callReply('call_tool', { name: 'vault.listInvoices', arguments: {} }), callReply('finish', { summary: 'ledger read' })], { runDir });
    const answer = toolAnswer(server, 1, 'call_1_1') as { ok: boolean; value?: unknown; summary: { storageRef: string; originalSize: { items: number }; aggregates: { fields: Record<string, { values?: Record<string, number>; min?: number; max?: number }> }[] } };
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
    expect(events.find((event) => event.type === 'summary-created')).toMatchObject({ label: 'vault.listInvoices', storageRef: answer.summary.storageRef });
    expect(result.rawOutputs[0]).toMatchObject({ ok: true, summary: { storageRef: answer.summary.storageRef } });
  });
});

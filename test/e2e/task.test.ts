// Black-box runs of `agent-spaces task`, against a scripted OpenAI-compatible server started here.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeExampleSpace, REPO } from '../support/example-space.js';
import { callReply, startScriptedModelServer, type ScriptedModelServer, type ScriptedReply } from '../support/scripted-model-server.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');

function cli(args: string[], options: { cwd: string; env?: Record<string, string> }) {
  return execa(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: options.env ?? {},
    extendEnv: false,
    reject: false,
    timeout: 90_000,
    stdin: 'ignore',
  });
}

const SCRIPT: ScriptedReply[] = [
  callReply('search_tools', { query: 'customers' }),
  callReply('call_tool', { name: 'crm.searchCustomers', arguments: { query: 'acme' } }),
  callReply('finish', { summary: 'Two customers are called Acme: Acme Corp and Acme Labs.', result: { count: 2 } }),
];

describe('agent-spaces task', () => {
  let space: { root: string; env: Record<string, string> };
  let server: ScriptedModelServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    space = await makeExampleSpace('task-cli');
    server = await startScriptedModelServer((_request, index) => SCRIPT[index % SCRIPT.length] ?? callReply('finish', { summary: '?' }));
    env = { ...space.env, PATH: process.env.PATH ?? '', AGENT_SPACES_BASE_URL: server.baseURL, AGENT_SPACES_MODEL: 'gpt-4.1-mini' };
  });
  afterAll(async () => {
    await server.close();
  });

  it('prints progress on stderr and the whole TaskResult with --json, records a trace that --replay re-runs without a model', async () => {
    const trace = path.join(space.root, 'trace.jsonl');
    const result = await cli(['task', 'How many customers are called Acme?', '--json', '--trace', trace], { cwd: space.root, env });
    expect(result.exitCode, result.stderr).toBe(0);
    const task = JSON.parse(result.stdout) as {
      success: boolean;
      finalSummary: string;
      result: unknown;
      budgetUsage: { steps: number; toolCalls: number };
      rawOutputs: unknown[];
    };
    expect(task).toMatchObject({
      success: true,
      finalSummary: 'Two customers are called Acme: Acme Corp and Acme Labs.',
      result: { count: 2 },
      budgetUsage: { steps: 3, toolCalls: 1 },
    });
    expect(result.stderr).toMatch(/^task .* with gpt-4\.1-mini/m);
    expect(result.stderr).toMatch(/\[step 1\] search_tools — \$0\.\d{4} so far/);
    expect(result.stderr).toMatch(/search "customers" → \d+ of \d+/);
    expect(result.stderr).toMatch(/call crm\.searchCustomers ok/);
    expect(result.stderr).toMatch(/✓ finished — 3 steps, 1 tool calls, 0 code runs, \$0\.\d{4}/);
    expect((await readFile(trace, 'utf8')).split('\n').filter(Boolean).length).toBeGreaterThan(5);

    const requestsBefore = server.requests.length;
    const replay = await cli(['task', '--replay', trace, '--json'], { cwd: space.root, env: { ...space.env, PATH: env.PATH ?? '' } });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stderr).toContain('replaying 3 recorded model replies');
    const replayed = JSON.parse(replay.stdout) as typeof task;
    expect(replayed.finalSummary).toBe(task.finalSummary);
    expect(replayed.rawOutputs).toEqual(task.rawOutputs);
    expect(server.requests.length).toBe(requestsBefore);
  });

  it('prints just the summary and the result without --json', async () => {
    const result = await cli(['task', 'How many customers are called Acme?'], { cwd: space.root, env });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('Two customers are called Acme: Acme Corp and Acme Labs.\n{\n  "count": 2\n}');
  });

  it('exits 1 with the limit named when the budget runs out', async () => {
    const result = await cli(['task', 'How many customers are called Acme?', '--budget-steps', '1'], { cwd: space.root, env });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('budget exceeded: maxSteps');
    expect(result.stdout).toMatch(/^The task stopped before it was finished/);
  });

  it('exits 2 for a missing key, an unreachable endpoint and bad options', async () => {
    const noKey = await cli(['task', 'anything'], { cwd: space.root, env: { ...space.env, PATH: env.PATH ?? '' } });
    expect(noKey.exitCode).toBe(2);
    expect(noKey.stderr).toMatch(/set OPENAI_API_KEY/);
    const unreachable = await cli(['task', 'anything', '--base-url', 'http://127.0.0.1:9/v1'], { cwd: space.root, env });
    expect(unreachable.exitCode).toBe(2);
    expect(unreachable.stderr).toMatch(/127\.0\.0\.1:9\/v1 is unreachable/);
    const badBudget = await cli(['task', 'anything', '--budget-cost', 'lots'], { cwd: space.root, env });
    expect(badBudget.exitCode).toBe(2);
    expect(badBudget.stderr).toMatch(/--budget-cost takes a number/);
    const noTask = await cli(['task'], { cwd: space.root, env });
    expect(noTask.exitCode).toBe(2);
  });
});

describe('examples/execute-task.ts', () => {
  const run = (args: string[]) =>
    execa(
      process.execPath,
      ['--no-node-snapshot', '--conditions=agent-spaces-source', '--import', 'tsx', path.join(REPO, 'examples/execute-task.ts'), ...args],
      { cwd: REPO, env: { PATH: process.env.PATH ?? '' }, extendEnv: false, reject: false, timeout: 90_000, stdin: 'ignore' },
    );

  it('passes its self-check against the scripted model', async () => {
    const result = await run(['--self-check']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('self-check passed');
  });

  it('says what to set when no model is configured, and exits 0', async () => {
    const result = await run([]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/Set OPENAI_API_KEY .*AGENT_SPACES_BASE_URL/);
  });
});

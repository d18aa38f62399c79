// `agent-spaces eval` on the bundled τ² retail suite: the oracle passes every task it runs in every arm,
// a real model is driven through a scripted OpenAI-compatible server of this test (its usage is what is
// reported, and a wrong run fails the suite's check), and a run interrupted with SIGINT resumes where it
// stopped, through the CLI.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEval, type EvalRun } from '../../eval/index.js';
import { REPO } from '../support/example-space.js';
import {
  startScriptedModelServer,
  type ChatRequestBody,
  type ScriptedModelServer,
  type ScriptedReply,
} from '../support/scripted-model-server.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');
// Task 0: exchange after reading two products; 16: calculate, two cancels and a return, an amount to
// say; 24: no call, facts to say; 35: two failed look-ups first; 36: one write, no look-up.
const TASKS = ['0', '16', '24', '35', '36'];

describe('agent-spaces eval with the oracle', () => {
  let run: EvalRun;

  beforeAll(async () => {
    run = await runEval({ suite: 'tau2-retail', tasks: TASKS.join(','), out: path.join(await makeTempDir('eval-oracle'), 'run') });
  }, 600_000);

  it('passes every task in every arm, making exactly the ground-truth calls', () => {
    expect(run.results).toHaveLength(TASKS.length * 3);
    expect(
      run.results.filter((result) => !result.success).map((result) => `${result.arm} ${result.taskId}: ${result.reasons.join('; ')}`),
    ).toEqual([]);
    for (const result of run.results) expect(result.toolCalls, `${result.arm} ${result.taskId}`).toBe(result.calls);
  });

  it('spends model turns as each arm allows: direct one per level of calls, code and planner fewer on dependent chains', () => {
    const turns = (arm: string, task: string) => run.results.find((r) => r.arm === arm && r.taskId === task)?.turns;
    // Task 0: look-up, order, two products together, exchange, answer.
    expect(turns('direct', '0')).toBe(5);
    // A search, then look-up, order and the two products it names in one program, the exchange, the
    // answer (+1 round trip when the search does not show every function needed).
    expect(turns('code', '0')).toBeGreaterThanOrEqual(4);
    expect(turns('direct', '24')).toBe(1);
    expect(turns('code', '24')).toBe(1);
    expect(turns('planner', '24')).toBe(1);
    for (const result of run.results) {
      expect(result.promptTokens).toBeGreaterThan(0);
      expect(result.tokensCounted).toBe(false);
      if (result.arm === 'direct') expect(result.codeRuns).toBe(0);
    }
  });

  it('writes the reports: the table per arm and the goals, in Markdown and JSON', async () => {
    const markdown = await readFile(path.join(run.dir, 'report.md'), 'utf8');
    expect(markdown).toMatch(/^\| direct \| 5 \| 5\/5 \(100%\) \|/m);
    expect(markdown).toMatch(/^\| code \| 5 \| 5\/5 \(100%\) \|/m);
    expect(markdown).toMatch(/^\| planner \| 5 \| 5\/5 \(100%\) \|/m);
    expect(markdown).toContain('code ≤ 0.5× direct prompt tokens on tasks of ≥ 3 calls');
    const json = JSON.parse(await readFile(path.join(run.dir, 'report.json'), 'utf8')) as {
      results: unknown[];
      report: { arms: { arm: string; successes: number }[] };
    };
    expect(json.results).toHaveLength(15);
    expect(json.report.arms.map((a) => [a.arm, a.successes])).toEqual([
      ['direct', 5],
      ['code', 5],
      ['planner', 5],
    ]);
  });
});

describe('agent-spaces eval with a real model (a scripted OpenAI-compatible server)', () => {
  let server: ScriptedModelServer;
  const write = {
    order_id: '#W9348897',
    item_ids: ['6117189161', '7453605304', '3799046073'],
    new_item_ids: ['6700049080', '5320792178', '3234800602'],
    payment_method_id: 'credit_card_8853416',
  };
  const answer = 'I changed the camera and the other items; the price difference of 481.50 goes to your card.';

  beforeAll(async () => {
    // Direct and code do task 36 right; the planner finishes at once, which leaves the database unchanged.
    server = await startScriptedModelServer((request: ChatRequestBody): ScriptedReply => {
      const tools = new Set((request.tools ?? []).map((tool) => tool.function.name));
      const replied = request.messages.filter((message) => message.role === 'assistant').length;
      if (tools.has('run_code')) return { toolCalls: [{ name: 'finish', arguments: { summary: 'Nothing to do.' } }] };
      if (tools.has('execute_code')) {
        if (replied > 0) return { content: answer };
        return {
          toolCalls: [
            {
              name: 'execute_code',
              arguments: {
                code: `import { retail } from '@capabilities/retail';\nconst order = await retail.modifyPendingOrderItems(${JSON.stringify(write)});\nexport default order.status;`,
              },
            },
          ],
        };
      }
      if (replied > 0) return { content: answer };
      return { toolCalls: [{ name: 'modify_pending_order_items', arguments: write }] };
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('reports the endpoint usage, passes the arms that did the task and fails the one that did not, saying why', async () => {
    const run = await runEval({
      suite: 'tau2-retail',
      tasks: '36',
      model: 'scripted-model',
      baseURL: server.baseURL,
      out: path.join(await makeTempDir('eval-scripted'), 'run'),
    });
    const byArm = Object.fromEntries(run.results.map((r) => [r.arm, r]));
    expect(byArm.direct).toMatchObject({
      success: true,
      turns: 2,
      toolCalls: 1,
      promptTokens: 2000,
      completionTokens: 200,
      tokensCounted: false,
      answer,
    });
    expect(byArm.code).toMatchObject({ success: true, turns: 2, toolCalls: 1, codeRuns: 1, promptTokens: 2000 });
    expect(byArm.planner).toMatchObject({ success: false, turns: 1, toolCalls: 0 });
    expect(byArm.planner?.reasons).toEqual([
      'the final database differs from the ground truth\'s in 1 record: orders["#W9348897"]',
      'the final answer does not say "camera"',
      'the final answer does not say "481.5"',
    ]);
    // What the model was sent: the same policy and task text in every arm; the direct arm's tools are τ²'s.
    const requests = server.chatRequests();
    const task = run.settings.taskIds[0];
    expect(task).toBe('36');
    for (const request of requests) expect(JSON.stringify(request.messages)).toContain('# Retail agent policy');
    const direct = requests.find((request) => request.tools?.some((tool) => tool.function.name === 'modify_pending_order_items'));
    expect(direct?.tools?.map((tool) => tool.function.name).sort()).toContain('find_user_id_by_email');
    expect(direct?.tools).toHaveLength(16);
  });
});

describe('agent-spaces eval on the command line', () => {
  it('stops on SIGINT keeping the finished tasks, and --resume runs only the rest', async () => {
    const out = path.join(await makeTempDir('eval-resume'), 'run');
    const args = ['eval', 'tau2-retail', '--arms', 'direct', '--tasks', '0-3', '--out', out];
    const first = execa(process.execPath, [BIN, ...args], { cwd: REPO, reject: false, timeout: 300_000, stdin: 'ignore', all: false });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      first.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/\[1\/4\] direct {2}task 0: pass/.test(stderr)) resolve();
      });
      void first.then(() => reject(new Error(`ended before the first task: ${stderr}`)), reject);
    });
    first.kill('SIGINT');
    const stopped = await first;
    expect(stopped.exitCode, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain(`go on with --resume --out ${out}`);
    const kept = await readdir(path.join(out, 'results', 'direct'));
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept.length).toBeLessThan(4);
    const before = await readFile(path.join(out, 'results', 'direct', '0#1.json'), 'utf8');

    const second = await execa(process.execPath, [BIN, 'eval', 'tau2-retail', '--resume', '--out', out, '--json'], {
      cwd: REPO,
      reject: false,
      timeout: 300_000,
      stdin: 'ignore',
    });
    expect(second.exitCode, second.stderr).toBe(0);
    // Only the tasks left were run; the kept result is the same file.
    expect(second.stderr).not.toMatch(/direct {2}task 0:/);
    expect(second.stderr).toMatch(/\[4\/4\] direct {2}task 3: pass/);
    expect(await readFile(path.join(out, 'results', 'direct', '0#1.json'), 'utf8')).toBe(before);
    const report = JSON.parse(second.stdout) as { interrupted: boolean; results: { taskId: string; success: boolean }[] };
    expect(report.interrupted).toBe(false);
    expect(report.results.map((r) => [r.taskId, r.success]).sort()).toEqual([
      ['0', true],
      ['1', true],
      ['2', true],
      ['3', true],
    ]);
  }, 600_000);

  it('refuses --resume without a run folder, an unknown arm and an unknown suite, saying what was wrong', async () => {
    const out = path.join(await makeTempDir('eval-refusals'), 'run');
    const arms = await execa(process.execPath, [BIN, 'eval', 'tau2-retail', '--arms', 'direct,magic', '--out', out], {
      cwd: REPO,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
    expect(arms.exitCode).toBe(2);
    expect(arms.stderr).toContain('--arms: unknown arm magic (the arms are direct, code, planner)');
    const suite = await execa(process.execPath, [BIN, 'eval', 'no-such-suite'], {
      cwd: REPO,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
    expect(suite.exitCode).toBe(2);
    expect(suite.stderr).toMatch(/no suite "no-such-suite": not a bundled suite \(tau2-retail, bfcl-multi-turn\)/);
    const resume = await execa(process.execPath, [BIN, 'eval', 'tau2-retail', '--resume', '--out', out], {
      cwd: REPO,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
    expect(resume.exitCode).toBe(2);
    expect(resume.stderr).toContain(`--resume: ${out} holds no run.json`);
    const help = await execa(process.execPath, [BIN, 'eval', '--help'], { cwd: REPO, reject: false, timeout: 60_000, stdin: 'ignore' });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('agent-spaces eval <suite> [--arms direct,code,planner]');
    expect(help.stdout).toContain('--resume');
  }, 300_000);
});

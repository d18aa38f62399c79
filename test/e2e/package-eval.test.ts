// `agent-spaces eval` for a user outside this repository (issue 26): the packed package installed into a
// fresh folder under the system's temp directory on this machine's Node (20), then the installed CLI runs
// the bundled τ² retail suite (shipped in the package, its files importing 'agent-spaces') and a suite of
// the user's own, written here as a user would: suite.ts and a defineTool capability importing
// defineSuite, suiteEnvironment and defineTool from 'agent-spaces'. The oracle model needs no network.
// Every run passing the suite's check means the tool handlers (loaded by the space) and the suite's check
// (loaded by the harness) worked on the same data.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentLine, lineEnvironment } from '../support/node-line.js';
import { inFolder, packOnce, STEP_TIMEOUT_MS } from './package-on-line.js';

interface EvalJson {
  dir: string;
  interrupted: boolean;
  arms: { arm: string; tasks: number; successes: number }[];
  results: { arm: string; taskId: string; success: boolean; reasons: string[]; toolCalls: number; calls: number }[];
}

const SUITE_TS = `import { defineSuite, suiteEnvironment, type EvalCall } from 'agent-spaces';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

type Ledger = Record<string, number>;
const fresh = (): Ledger => ({ alice: 10, bob: 7 });
const ledger = suiteEnvironment<Ledger>('my-ledger');

function apply(data: Ledger, call: EvalCall): unknown {
  const account = String(call.arguments.account);
  if (!(account in data)) throw new Error('no account ' + account);
  if (call.name === 'deposit') data[account] = (data[account] ?? 0) + Number(call.arguments.amount);
  return { balance: data[account] };
}

export default defineSuite({
  name: 'my-ledger',
  description: 'Two accounts and a deposit: a user suite written against the package',
  policy: 'You help the owner of a ledger. Change balances only when asked.',
  spaceDir: path.dirname(fileURLToPath(import.meta.url)),
  module: 'ledger',
  writeCalls: new Set(['deposit']),
  tasks: [
    {
      id: 'deposit',
      instruction: 'Deposit 5 into the account alice, then tell me its balance.',
      calls: [
        { name: 'deposit', arguments: { account: 'alice', amount: 5 } },
        { name: 'get_balance', arguments: { account: 'alice' } },
      ],
      expectedOutputs: ['15'],
    },
    {
      id: 'read',
      instruction: 'What is the balance of the account bob?',
      calls: [{ name: 'get_balance', arguments: { account: 'bob' } }],
      expectedOutputs: ['7'],
    },
  ],
  reset() {
    ledger.set(fresh());
  },
  replay(calls) {
    const data = fresh();
    return calls.map((call) => {
      try {
        return { ok: true as const, value: apply(data, call) };
      } catch (error) {
        return { ok: false as const, error: String(error) };
      }
    });
  },
  check(task, answer) {
    const gold = fresh();
    for (const call of task.calls) apply(gold, call);
    const reasons: string[] = [];
    if (JSON.stringify(ledger.get()) !== JSON.stringify(gold)) reasons.push('the ledger is ' + JSON.stringify(ledger.get()) + ', not ' + JSON.stringify(gold));
    for (const expected of task.expectedOutputs) if (!answer.includes(expected)) reasons.push('the answer does not say ' + expected);
    return { success: reasons.length === 0, reasons };
  },
});
`;

const CAPABILITY_TS = `import { defineFunction, defineTool, suiteEnvironment } from 'agent-spaces';

const ledger = suiteEnvironment<Record<string, number>>('my-ledger');
const account = { type: 'object', properties: { account: { type: 'string' } }, required: ['account'] } as const;
const balance = { type: 'object', properties: { balance: { type: 'number' } }, required: ['balance'] } as const;

export const tool = defineTool({
  name: 'ledger',
  functions: {
    get_balance: defineFunction({
      description: 'The balance of an account',
      parameters: account,
      returns: balance,
      handler: async ({ account }) => {
        const value = ledger.get()[account];
        if (value === undefined) throw new Error('no account ' + account);
        return { balance: value };
      },
    }),
    deposit: defineFunction({
      description: 'Adds an amount to an account and returns the new balance',
      parameters: { type: 'object', properties: { account: { type: 'string' }, amount: { type: 'number' } }, required: ['account', 'amount'] },
      returns: balance,
      handler: async ({ account, amount }) => {
        const data = ledger.get();
        if (data[account] === undefined) throw new Error('no account ' + account);
        data[account] += amount;
        return { balance: data[account] };
      },
    }),
  },
});
`;

const CONFIG_TS = `import { defineConfig } from 'agent-spaces';

export default defineConfig({ capabilities: ['capabilities/*.ts'] });
`;

describe('agent-spaces eval from the packed package, installed outside the repository', () => {
  let work: string | undefined;
  let space = '';
  let env: NodeJS.ProcessEnv = {};
  let packedFiles: string[] = [];

  beforeAll(async () => {
    const line = currentLine();
    work = await mkdtemp(path.join(tmpdir(), `agent-spaces-eval-node${line.major}-`));
    space = path.join(work, 'my-evals');
    env = lineEnvironment(line, process.env);
    const tarball = await packOnce();
    packedFiles = tarball.files;
    await mkdir(space, { recursive: true });
    await writeFile(path.join(space, 'package.json'), JSON.stringify({ name: 'my-evals', private: true, type: 'module' }, null, 2));
    await inFolder(env, space, 'npm', ['install', tarball.file, '--prefer-offline', '--no-audit', '--no-fund']);
    const suite = path.join(space, 'my-suite');
    await mkdir(path.join(suite, 'capabilities'), { recursive: true });
    await writeFile(path.join(suite, 'suite.ts'), SUITE_TS);
    await writeFile(path.join(suite, 'agent-spaces.config.ts'), CONFIG_TS);
    await writeFile(path.join(suite, 'capabilities', 'ledger.ts'), CAPABILITY_TS);
  }, 30 * 60_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  const evalJson = async (args: string[]): Promise<EvalJson> => {
    const { stdout } = await inFolder(env, space, 'npx', ['--no', '--', 'agent-spaces', 'eval', ...args, '--json']);
    return JSON.parse(stdout) as EvalJson;
  };

  it('ships the bundled suites: their sources and data with the licence, not their tests, parity scripts or build output', () => {
    const suiteFiles = packedFiles.filter((file) => file.startsWith('eval/'));
    expect(suiteFiles.sort()).toEqual(
      [
        'eval/suites/tau2-retail/agent-spaces.config.ts',
        'eval/suites/tau2-retail/capabilities/retail.ts',
        'eval/suites/tau2-retail/data/LICENSE',
        'eval/suites/tau2-retail/data/SOURCE.md',
        'eval/suites/tau2-retail/data/db.json',
        'eval/suites/tau2-retail/data/policy.md',
        'eval/suites/tau2-retail/data/split_tasks.json',
        'eval/suites/tau2-retail/data/tasks.json',
        'eval/suites/tau2-retail/retail-db.ts',
        'eval/suites/tau2-retail/suite.ts',
        'eval/suites/bfcl-multi-turn/README.md',
        'eval/suites/bfcl-multi-turn/agent-spaces.config.ts',
        'eval/suites/bfcl-multi-turn/bfcl-world.ts',
        'eval/suites/bfcl-multi-turn/call-syntax.ts',
        'eval/suites/bfcl-multi-turn/capabilities/bfcl.ts',
        'eval/suites/bfcl-multi-turn/data/BFCL_v4_multi_turn_base.json',
        'eval/suites/bfcl-multi-turn/data/LICENSE',
        'eval/suites/bfcl-multi-turn/data/SOURCE.md',
        'eval/suites/bfcl-multi-turn/data/message_api.json',
        'eval/suites/bfcl-multi-turn/data/possible_answer_BFCL_v4_multi_turn_base.json',
        'eval/suites/bfcl-multi-turn/data/posting_api.json',
        'eval/suites/bfcl-multi-turn/data/vehicle_control.json',
        'eval/suites/bfcl-multi-turn/ground-truth.ts',
        'eval/suites/bfcl-multi-turn/message.ts',
        'eval/suites/bfcl-multi-turn/policy.md',
        'eval/suites/bfcl-multi-turn/python-random.ts',
        'eval/suites/bfcl-multi-turn/suite.ts',
        'eval/suites/bfcl-multi-turn/twitter.ts',
        'eval/suites/bfcl-multi-turn/vehicle-control.ts',
      ].sort(),
    );
    expect(packedFiles.filter((file) => file.startsWith('dist/eval/suites/'))).toEqual([]);
  });

  it(
    'runs the bundled bfcl-multi-turn suite by name with the oracle: each task starts from its own state and passes',
    async () => {
      const out = path.join(space, 'runs', 'bfcl');
      const report = await evalJson(['bfcl-multi-turn', '--tasks', 'first:2', '--arms', 'direct,code', '--out', out]);
      expect(report.interrupted).toBe(false);
      expect(report.results).toHaveLength(4);
      expect(
        report.results.filter((result) => !result.success).map((result) => `${result.arm} ${result.taskId}: ${result.reasons.join('; ')}`),
      ).toEqual([]);
      for (const result of report.results) expect(result.toolCalls, `${result.arm} ${result.taskId}`).toBe(result.calls);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'runs the bundled tau2-retail suite by name with the oracle: every run of tasks 0-1 in the direct and code arms passes the check',
    async () => {
      const out = path.join(space, 'runs', 'retail');
      const report = await evalJson(['tau2-retail', '--tasks', '0-1', '--arms', 'direct,code', '--out', out]);
      expect(report.dir).toBe(out);
      expect(report.interrupted).toBe(false);
      expect(report.results.map((result) => `${result.arm} ${result.taskId}`).sort()).toEqual(['code 0', 'code 1', 'direct 0', 'direct 1']);
      expect(
        report.results.filter((result) => !result.success).map((result) => `${result.arm} ${result.taskId}: ${result.reasons.join('; ')}`),
      ).toEqual([]);
      for (const result of report.results) expect(result.toolCalls, `${result.arm} ${result.taskId}`).toBe(result.calls);
      expect(report.arms.map((arm) => [arm.arm, arm.successes])).toEqual([
        ['direct', 2],
        ['code', 2],
      ]);
      expect(existsSync(path.join(out, 'report.md'))).toBe(true);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "runs a user's own suite folder importing from 'agent-spaces' (defineSuite, suiteEnvironment, a defineTool capability): both tasks pass in both arms",
    async () => {
      const out = path.join(space, 'runs', 'mine');
      const report = await evalJson(['./my-suite', '--arms', 'direct,code', '--out', out]);
      expect(report.results.map((result) => `${result.arm} ${result.taskId}`).sort()).toEqual([
        'code deposit',
        'code read',
        'direct deposit',
        'direct read',
      ]);
      expect(
        report.results.filter((result) => !result.success).map((result) => `${result.arm} ${result.taskId}: ${result.reasons.join('; ')}`),
      ).toEqual([]);
      for (const result of report.results) expect(result.toolCalls, `${result.arm} ${result.taskId}`).toBe(result.calls);
      const markdown = await readFile(path.join(out, 'report.md'), 'utf8');
      expect(markdown).toContain('my-ledger');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "fails a user's suite whose check fails, saying why (the harness really reads the tools' data)",
    async () => {
      // The same suite with a wrong starting balance in its check's ground truth: the oracle's runs must fail.
      const broken = path.join(space, 'broken-suite');
      await mkdir(path.join(broken, 'capabilities'), { recursive: true });
      await writeFile(
        path.join(broken, 'suite.ts'),
        SUITE_TS.replace(
          'const fresh = (): Ledger => ({ alice: 10, bob: 7 });',
          'const fresh = (): Ledger => ({ alice: 10, bob: 7 });\nconst goldStart = (): Ledger => ({ alice: 11, bob: 7 });',
        ).replace('const gold = fresh();', 'const gold = goldStart();'),
      );
      await writeFile(path.join(broken, 'agent-spaces.config.ts'), CONFIG_TS);
      await writeFile(path.join(broken, 'capabilities', 'ledger.ts'), CAPABILITY_TS);
      const failed = await inFolder(env, space, 'npx', [
        '--no',
        '--',
        'agent-spaces',
        'eval',
        './broken-suite',
        '--arms',
        'direct',
        '--tasks',
        'deposit',
        '--out',
        path.join(space, 'runs', 'broken'),
        '--json',
      ]).then(
        () => undefined,
        (error: unknown) => error as { stdout?: string; code?: unknown },
      );
      expect(failed, 'an oracle run that fails its check exits non-zero').toBeDefined();
      const report = JSON.parse(failed?.stdout ?? '{}') as EvalJson;
      expect(report.results.map((result) => [result.taskId, result.success])).toEqual([['deposit', false]]);
      expect(report.results[0]?.reasons.join('; ')).toContain('the ledger is {"alice":15,"bob":7}, not {"alice":16,"bob":7}');
    },
    STEP_TIMEOUT_MS,
  );
});

// The report's goals of issue 26 computed from results: each can be met and missed.
import { describe, expect, it } from 'vitest';
import { resolveBudget } from '../planner/index.js';
import type { Arm } from './arms/arm-types.js';
import { buildReport } from './report.js';
import type { RunSettings, TaskResultRecord } from './run-eval.js';

const settings: RunSettings = {
  suite: 's',
  suiteDir: '/s',
  arms: ['direct', 'code', 'planner'],
  model: 'oracle',
  taskIds: ['1', '2'],
  repeat: 1,
  budget: resolveBudget(),
  priceAs: 'gpt-5-mini',
  startedAt: '',
};
const suite = { name: 's', description: 'a suite' };

function result(arm: Arm, taskId: string, promptTokens: number, extra: Partial<TaskResultRecord> = {}): TaskResultRecord {
  return {
    arm,
    taskId,
    repetition: 1,
    calls: 4,
    success: true,
    reasons: [],
    answer: '',
    turns: 3,
    promptTokens,
    completionTokens: 0,
    tokensCounted: false,
    toolCalls: 4,
    codeRuns: arm === 'code' ? 1 : 0,
    searches: arm === 'direct' ? 0 : 1,
    wallMs: 10,
    costUsd: promptTokens / 1e6,
    ...extra,
  };
}

describe('buildReport', () => {
  it('meets every goal when code halves direct, the planner is cheapest and code searched once', () => {
    const report = buildReport(
      settings,
      ['1', '2'].flatMap((id) => [result('direct', id, 1000), result('code', id, 400), result('planner', id, 390)]),
      suite,
    );
    expect(report.goals.map((goal) => [goal.goal, goal.met])).toEqual([
      ['code ≤ 0.5× direct prompt tokens on tasks of ≥ 3 calls', true],
      ['planner within 10% of the cheaper fixed arm on every task', true],
      ['planner cheaper than both fixed arms on average', true],
      ['code mode needs ≤ 1 search round trip per task', true],
    ]);
    expect(report.markdown).toMatch(/^\| code \| 2 \| 2\/2 \(100%\) \| 3\.0 \| 400 \|/m);
  });

  it('misses them, naming the tasks, when code costs more, the planner more still and code searched twice', () => {
    const report = buildReport(
      settings,
      [
        result('direct', '1', 1000),
        result('code', '1', 600, { searches: 2 }),
        result('planner', '1', 700),
        result('direct', '2', 1000),
        result('code', '2', 400),
        result('planner', '2', 420),
      ],
      suite,
    );
    expect(report.goals.filter((goal) => !goal.met).map((goal) => goal.detail)).toEqual([
      '1 of 2 tasks meet it; code/direct over those tasks: 0.50×; over 0.5× on tasks 1',
      '1 of 2 tasks meet it; over on tasks 1',
      'mean cost per task: planner $0.00056, direct $0.00100, code $0.00050 (priced as gpt-5-mini)',
      '1 of 2 tasks; more on tasks 1',
    ]);
    expect(report.mostDifferent[0]?.taskId).toBe('2');
  });
});

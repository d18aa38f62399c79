import type { Arm } from './arms/arm-types.js';
import type { RunSettings, TaskResultRecord } from './run-eval.js';
import type { EvalSuite } from './suite.js';

export interface ArmSummary {
  arm: Arm;
  runs: number;
  successes: number;
  successRate: number;
  meanTurns: number;
  meanPromptTokens: number;
  meanCompletionTokens: number;
  meanToolCalls: number;
  meanCodeRuns: number;
  meanSearches: number;
  meanWallMs: number;
  totalCostUsd: number;
  /** Some replies had no usage and were counted with the tokenizer. */
  tokensCounted: boolean;
}

export interface TaskRow {
  taskId: string;
  calls: number;
  /** Per arm, the mean over repetitions. */
  arms: Partial<
    Record<
      Arm,
      {
        success: number;
        turns: number;
        promptTokens: number;
        completionTokens: number;
        toolCalls: number;
        codeRuns: number;
        searches: number;
        costUsd: number;
        wallMs: number;
      }
    >
  >;
  /** Largest over smallest prompt tokens among the arms (1 with fewer than two arms). */
  spread: number;
}

export interface GoalCheck {
  goal: string;
  met: boolean;
  detail: string;
}

export interface EvalReport {
  arms: ArmSummary[];
  tasks: TaskRow[];
  goals: GoalCheck[];
  /** The five tasks whose arms differ most in prompt tokens. */
  mostDifferent: TaskRow[];
  markdown: string;
}

const mean = (values: number[]): number => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

export function buildReport(
  settings: RunSettings,
  results: readonly TaskResultRecord[],
  suite: Pick<EvalSuite, 'name' | 'description'>,
): EvalReport {
  const arms: ArmSummary[] = settings.arms.map((arm) => {
    const mine = results.filter((record) => record.arm === arm);
    const successes = mine.filter((record) => record.success).length;
    return {
      arm,
      runs: mine.length,
      successes,
      successRate: mine.length === 0 ? 0 : successes / mine.length,
      meanTurns: mean(mine.map((r) => r.turns)),
      meanPromptTokens: mean(mine.map((r) => r.promptTokens)),
      meanCompletionTokens: mean(mine.map((r) => r.completionTokens)),
      meanToolCalls: mean(mine.map((r) => r.toolCalls)),
      meanCodeRuns: mean(mine.map((r) => r.codeRuns)),
      meanSearches: mean(mine.map((r) => r.searches)),
      meanWallMs: mean(mine.map((r) => r.wallMs)),
      totalCostUsd: mine.reduce((sum, r) => sum + r.costUsd, 0),
      tokensCounted: mine.some((r) => r.tokensCounted),
    };
  });

  const tasks: TaskRow[] = settings.taskIds.flatMap((taskId) => {
    const mine = results.filter((record) => record.taskId === taskId);
    if (mine.length === 0) return [];
    const row: TaskRow = { taskId, calls: mine[0]?.calls ?? 0, arms: {}, spread: 1 };
    for (const arm of settings.arms) {
      const runs = mine.filter((record) => record.arm === arm);
      if (runs.length === 0) continue;
      row.arms[arm] = {
        success: mean(runs.map((r) => (r.success ? 1 : 0))),
        turns: mean(runs.map((r) => r.turns)),
        promptTokens: mean(runs.map((r) => r.promptTokens)),
        completionTokens: mean(runs.map((r) => r.completionTokens)),
        toolCalls: mean(runs.map((r) => r.toolCalls)),
        codeRuns: mean(runs.map((r) => r.codeRuns)),
        searches: mean(runs.map((r) => r.searches)),
        costUsd: mean(runs.map((r) => r.costUsd)),
        wallMs: mean(runs.map((r) => r.wallMs)),
      };
    }
    const prompts = Object.values(row.arms)
      .map((a) => a.promptTokens)
      .filter((p) => p > 0);
    row.spread = prompts.length >= 2 ? Math.max(...prompts) / Math.min(...prompts) : 1;
    return [row];
  });

  const goals: GoalCheck[] = [];
  const both = (a: Arm, b: Arm) => tasks.filter((row) => row.arms[a] && row.arms[b]);
  if (settings.arms.includes('direct') && settings.arms.includes('code')) {
    const rows = both('direct', 'code').filter((row) => row.calls >= 3);
    const over = rows.filter((row) => (row.arms.code?.promptTokens ?? 0) > 0.5 * (row.arms.direct?.promptTokens ?? 0));
    const ratio =
      rows.reduce((s, r) => s + (r.arms.code?.promptTokens ?? 0), 0) /
      Math.max(
        1,
        rows.reduce((s, r) => s + (r.arms.direct?.promptTokens ?? 0), 0),
      );
    goals.push({
      goal: 'code ≤ 0.5× direct prompt tokens on tasks of ≥ 3 calls',
      met: rows.length > 0 && over.length === 0,
      detail: `${rows.length - over.length} of ${rows.length} tasks meet it; code/direct over those tasks: ${fixed(ratio, 2)}×${
        over.length > 0
          ? `; over 0.5× on tasks ${over
              .slice(0, 15)
              .map((r) => r.taskId)
              .join(', ')}${over.length > 15 ? ', …' : ''}`
          : ''
      }`,
    });
  }
  if (settings.arms.includes('planner') && settings.arms.includes('direct') && settings.arms.includes('code')) {
    const rows = tasks.filter((row) => row.arms.planner && row.arms.direct && row.arms.code);
    const cost = (row: TaskRow, arm: Arm) => row.arms[arm]?.costUsd ?? 0;
    const over = rows.filter((row) => cost(row, 'planner') > 1.1 * Math.min(cost(row, 'direct'), cost(row, 'code')));
    goals.push({
      goal: 'planner within 10% of the cheaper fixed arm on every task',
      met: rows.length > 0 && over.length === 0,
      detail: `${rows.length - over.length} of ${rows.length} tasks meet it${
        over.length > 0
          ? `; over on tasks ${over
              .slice(0, 15)
              .map((r) => r.taskId)
              .join(', ')}${over.length > 15 ? ', …' : ''}`
          : ''
      }`,
    });
    const avg = (arm: Arm) => mean(rows.map((row) => cost(row, arm)));
    goals.push({
      goal: 'planner cheaper than both fixed arms on average',
      met: avg('planner') < avg('direct') && avg('planner') < avg('code'),
      detail: `mean cost per task: planner $${avg('planner').toFixed(5)}, direct $${avg('direct').toFixed(5)}, code $${avg('code').toFixed(5)} (priced as ${settings.priceAs})`,
    });
  }
  if (settings.arms.includes('code')) {
    const rows = tasks.filter((row) => row.arms.code && row.calls > 0);
    const more = rows.filter((row) => (row.arms.code?.searches ?? 0) > 1);
    goals.push({
      goal: 'code mode needs ≤ 1 search round trip per task',
      met: more.length === 0,
      detail: `${rows.length - more.length} of ${rows.length} tasks${more.length > 0 ? `; more on tasks ${more.map((r) => r.taskId).join(', ')}` : ''}`,
    });
  }

  const mostDifferent = [...tasks].sort((a, b) => b.spread - a.spread || Number(a.taskId) - Number(b.taskId)).slice(0, 5);
  return { arms, tasks, goals, mostDifferent, markdown: markdownOf(settings, suite, arms, tasks, goals, mostDifferent, results) };
}

function markdownOf(
  settings: RunSettings,
  suite: Pick<EvalSuite, 'name' | 'description'>,
  arms: ArmSummary[],
  tasks: TaskRow[],
  goals: GoalCheck[],
  mostDifferent: TaskRow[],
  results: readonly TaskResultRecord[],
): string {
  const lines: string[] = [];
  lines.push(`# Eval: ${suite.name}`, '', suite.description, '');
  lines.push(
    `Model: \`${settings.model}\`; arms: ${settings.arms.join(', ')}; ${settings.taskIds.length} tasks × ${settings.repeat}; budget per task: ${settings.budget.maxSteps} model turns, ${settings.budget.maxToolCalls} tool calls, ${settings.budget.maxCodeRuns} code runs; cost priced as \`${settings.priceAs}\`. Results: ${results.length} of ${settings.taskIds.length * settings.arms.length * settings.repeat}.`,
    '',
  );
  lines.push(
    '| arm | runs | success | turns | prompt tokens | completion tokens | tool calls | code runs | searches | wall s | cost $ (all) |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const a of arms) {
    lines.push(
      `| ${a.arm} | ${a.runs} | ${a.successes}/${a.runs} (${fixed(100 * a.successRate, 0)}%) | ${fixed(a.meanTurns)} | ${thousands(a.meanPromptTokens)} | ${thousands(a.meanCompletionTokens)} | ${fixed(a.meanToolCalls)} | ${fixed(a.meanCodeRuns)} | ${fixed(a.meanSearches)} | ${fixed(a.meanWallMs / 1000, 2)} | ${a.totalCostUsd.toFixed(4)} |`,
    );
  }
  lines.push(
    '',
    "Per-task means; tokens from the endpoint's `usage`" +
      (arms.some((a) => a.tokensCounted) ? ' (some replies had none: counted with the tokenizer)' : '') +
      '.',
    '',
  );
  if (goals.length > 0) {
    lines.push('## Goals', '');
    for (const g of goals) lines.push(`- ${g.met ? 'met' : '**not met**'}: ${g.goal} — ${g.detail}`);
    lines.push('');
  }
  const failures = results.filter((r) => !r.success);
  if (failures.length > 0) {
    lines.push('## Failures', '');
    for (const f of failures.slice(0, 50))
      lines.push(`- ${f.arm} task ${f.taskId}${settings.repeat > 1 ? ` #${f.repetition}` : ''}: ${f.reasons.join('; ')}`);
    if (failures.length > 50) lines.push(`- … ${failures.length - 50} more (report.json)`);
    lines.push('');
  }
  const cell = (row: TaskRow, arm: Arm) => {
    const a = row.arms[arm];
    return a
      ? `${a.success === 1 ? 'pass' : a.success === 0 ? 'FAIL' : `${fixed(100 * a.success, 0)}%`} ${fixed(a.turns, 0)}t ${thousands(a.promptTokens)}`
      : '–';
  };
  lines.push('## Arms differing most (prompt tokens, largest ÷ smallest)', '');
  lines.push(`| task | calls | spread | ${settings.arms.join(' | ')} |`, `|---|---:|---:|${settings.arms.map(() => '---').join('|')}|`);
  for (const row of mostDifferent)
    lines.push(`| ${row.taskId} | ${row.calls} | ${fixed(row.spread, 2)}× | ${settings.arms.map((arm) => cell(row, arm)).join(' | ')} |`);
  lines.push('', '## Every task (outcome, model turns, prompt tokens)', '');
  lines.push(`| task | calls | ${settings.arms.join(' | ')} |`, `|---|---:|${settings.arms.map(() => '---').join('|')}|`);
  for (const row of tasks) lines.push(`| ${row.taskId} | ${row.calls} | ${settings.arms.map((arm) => cell(row, arm)).join(' | ')} |`);
  return `${lines.join('\n')}\n`;
}

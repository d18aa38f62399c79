import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../core/index.js';
import {
  buildReport,
  EvalError,
  EvalFileMissingError,
  evalRunDir,
  listEvalRunIds,
  readEvalRunFolder,
  readEvalTranscript,
  type Arm,
  type EvalRunFolder,
  type TaskRow,
} from '../../eval/index.js';
import type { StudioContext } from './studio-context.js';
import { StudioError } from './studio-error.js';
import { transcriptEntries } from './eval-transcript.js';
import type {
  EvalArmView,
  EvalComparisonView,
  EvalDelta,
  EvalMetrics,
  EvalRunListView,
  EvalRunSummary,
  EvalRunView,
  EvalTaskArmView,
  EvalTaskView,
  EvalTranscriptView,
} from './wire-types.js';

/** Eval runs listed at most, newest first (the folders last changed are read; the rest not at all). */
const MAX_EVAL_RUNS = 100;

/** A fault of the run folder as the API's answer: a missing file 404, anything else 400, naming the file. */
function asStudioError(error: unknown): unknown {
  if (error instanceof EvalFileMissingError) return new StudioError('STUDIO_NOT_FOUND', error.message, { cause: error });
  if (error instanceof EvalError) return new StudioError('STUDIO_BAD_REQUEST', error.message, { cause: error });
  return error;
}

async function openRun(context: StudioContext, id: string): Promise<EvalRunFolder> {
  try {
    return await readEvalRunFolder(evalRunDir(context.evalDir, id));
  } catch (error) {
    throw asStudioError(error);
  }
}

function summaryOf(id: string, run: EvalRunFolder): EvalRunSummary {
  const { settings, results } = run;
  return {
    id,
    suite: settings.suite,
    model: settings.model,
    arms: settings.arms,
    tasks: settings.taskIds.length,
    repeat: settings.repeat,
    startedAt: settings.startedAt,
    results: results.length,
    expected: settings.taskIds.length * settings.arms.length * settings.repeat,
    outcomes: settings.arms.map((arm) => {
      const mine = results.filter((record) => record.arm === arm);
      return { arm, runs: mine.length, successes: mine.filter((record) => record.success).length };
    }),
  };
}

/** The run folders under the eval folder with their settings and outcomes; an unreadable one says why. */
export async function listEvalRuns(context: StudioContext): Promise<EvalRunListView> {
  const all = await listEvalRunIds(context.evalDir);
  const changed = await Promise.all(
    all.map(async (id) => ({ id, at: (await lstat(path.join(context.evalDir, id)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  const ids = changed
    .sort((a, b) => b.at - a.at)
    .slice(0, MAX_EVAL_RUNS)
    .map((entry) => entry.id);
  const runs: EvalRunSummary[] = [];
  for (const id of ids) {
    try {
      runs.push(summaryOf(id, await readEvalRunFolder(evalRunDir(context.evalDir, id))));
    } catch (error) {
      runs.push({ id, problem: context.redact(errorMessage(error)) });
    }
  }
  runs.sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || a.id.localeCompare(b.id));
  return { evalDir: context.evalDir, runs, ...(all.length > ids.length ? { more: all.length - ids.length } : {}) };
}

function metricsOf(row: NonNullable<TaskRow['arms'][Arm]>): EvalMetrics {
  const { success, turns, promptTokens, completionTokens, toolCalls, codeRuns, searches, wallMs, costUsd } = row;
  return { success, turns, promptTokens, completionTokens, toolCalls, codeRuns, searches, wallMs, costUsd };
}

/** One run's report: per arm and per task, as `report.json` has it, with each failure's reasons. */
export async function getEvalRun(context: StudioContext, id: string): Promise<EvalRunView> {
  const run = await openRun(context, id);
  const { settings, results } = run;
  const report = buildReport(settings, results, { name: settings.suite, description: '' });
  const armViews: EvalArmView[] = report.arms.map((arm) => ({
    arm: arm.arm,
    runs: arm.runs,
    successes: arm.successes,
    success: arm.successRate,
    turns: arm.meanTurns,
    promptTokens: arm.meanPromptTokens,
    completionTokens: arm.meanCompletionTokens,
    toolCalls: arm.meanToolCalls,
    codeRuns: arm.meanCodeRuns,
    searches: arm.meanSearches,
    wallMs: arm.meanWallMs,
    costUsd: arm.runs === 0 ? 0 : arm.totalCostUsd / arm.runs,
    totalCostUsd: arm.totalCostUsd,
    tokensCounted: arm.tokensCounted,
  }));
  const tasks: EvalTaskView[] = report.tasks.map((row) => {
    const arms: Partial<Record<Arm, EvalTaskArmView>> = {};
    for (const [arm, values] of Object.entries(row.arms) as [Arm, NonNullable<TaskRow['arms'][Arm]>][]) {
      const mine = results.filter((record) => record.arm === arm && record.taskId === row.taskId);
      arms[arm] = { ...metricsOf(values), runs: mine.length, reasons: mine.flatMap((record) => record.reasons) };
    }
    const outcomes = new Set(Object.values(arms).map((arm) => arm.success));
    return { taskId: row.taskId, calls: row.calls, arms, spread: row.spread, outcomesDiffer: outcomes.size > 1 };
  });
  return context.redact({
    id,
    dir: run.dir,
    suite: settings.suite,
    model: settings.model,
    arms: settings.arms,
    repeat: settings.repeat,
    startedAt: settings.startedAt,
    priceAs: settings.priceAs,
    budget: { ...settings.budget },
    expected: settings.taskIds.length * settings.arms.length * settings.repeat,
    armViews,
    tasks,
    goals: report.goals,
    problems: run.problems,
  });
}

/** One task's transcript in one arm, as steps in order (messages, calls, programs, results, answer). */
export async function getEvalTranscript(
  context: StudioContext,
  id: string,
  arm: string,
  taskId: string,
  repetition: string,
): Promise<EvalTranscriptView> {
  const run = await openRun(context, id);
  const number = /^\d{1,6}$/.test(repetition) ? Number(repetition) : Number.NaN;
  let transcript: unknown[];
  try {
    transcript = await readEvalTranscript(run.dir, run.settings, arm, taskId, number);
  } catch (error) {
    throw asStudioError(error);
  }
  const record = run.results.find((result) => result.arm === arm && result.taskId === taskId && result.repetition === number);
  const { entries, truncated } = transcriptEntries(transcript);
  return context.redact({
    runId: id,
    arm: arm as Arm,
    taskId,
    repetition: number,
    ...(record ? { success: record.success, answer: record.answer } : {}),
    reasons: record?.reasons ?? [],
    entries,
    truncated,
  });
}

const METRICS: (keyof EvalMetrics)[] = [
  'success',
  'turns',
  'promptTokens',
  'completionTokens',
  'toolCalls',
  'codeRuns',
  'searches',
  'wallMs',
  'costUsd',
];

function deltaOf(before: EvalMetrics | undefined, after: EvalMetrics | undefined): EvalDelta {
  const pick = (metrics: EvalMetrics): EvalMetrics =>
    Object.fromEntries(METRICS.map((key) => [key, metrics[key]])) as unknown as EvalMetrics;
  return {
    ...(before ? { before: pick(before) } : {}),
    ...(after ? { after: pick(after) } : {}),
    ...(before && after
      ? { delta: Object.fromEntries(METRICS.map((key) => [key, after[key] - before[key]])) as unknown as EvalMetrics }
      : {}),
  };
}

/** Two runs side by side (before → after): per arm and per task, each metric and its difference. */
export async function compareEvalRuns(context: StudioContext, beforeId: string, afterId: string): Promise<EvalComparisonView> {
  const [before, after] = [await getEvalRun(context, beforeId), await getEvalRun(context, afterId)];
  const arms = [...new Set([...before.arms, ...after.arms])];
  const taskIds = [...new Set([...before.tasks.map((task) => task.taskId), ...after.tasks.map((task) => task.taskId)])];
  const summary = (view: EvalRunView): EvalRunSummary => ({
    id: view.id,
    suite: view.suite,
    model: view.model,
    arms: view.arms,
    tasks: view.tasks.length,
    repeat: view.repeat,
    startedAt: view.startedAt,
    results: view.armViews.reduce((sum, arm) => sum + arm.runs, 0),
    expected: view.expected,
    outcomes: view.armViews.map((arm) => ({ arm: arm.arm, runs: arm.runs, successes: arm.successes })),
  });
  return {
    before: summary(before),
    after: summary(after),
    arms: arms.map((arm) => ({
      arm,
      ...deltaOf(
        before.armViews.find((view) => view.arm === arm),
        after.armViews.find((view) => view.arm === arm),
      ),
    })),
    tasks: taskIds.map((taskId) => {
      const was = before.tasks.find((task) => task.taskId === taskId);
      const is = after.tasks.find((task) => task.taskId === taskId);
      const perArm: Partial<Record<Arm, EvalDelta>> = {};
      for (const arm of arms) if (was?.arms[arm] || is?.arms[arm]) perArm[arm] = deltaOf(was?.arms[arm], is?.arms[arm]);
      const outcomeChanged = Object.values(perArm).some((delta) => delta.delta !== undefined && delta.delta.success !== 0);
      return { taskId, arms: perArm, outcomeChanged };
    }),
  };
}

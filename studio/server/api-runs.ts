import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../core/index.js';
import { randomUUID } from 'node:crypto';
import { executeTask, readTrace, type PlannerEvent } from '../../planner/index.js';
import type { StudioContext } from './studio-context.js';
import { StudioError } from './studio-error.js';
import type { CodeRunView, ReplayView, RunListView, RunSummary } from './wire-types.js';

/** Runs listed at most, newest first. */
const MAX_RUNS = 200;
/** The store's runs listed at most, newest first (each comes with its request and result). */
const MAX_STORED_RUNS = 100;
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * The run folder's runs: planner tasks (`trace.jsonl`) and the studio's code runs (`code-run.json`);
 * with a store, also the store's runs and tasks with their status.
 */
export async function listRuns(context: StudioContext): Promise<RunListView> {
  const names = await readdir(context.runsDir).catch(() => [] as string[]);
  const [found, stored] = await Promise.all([
    Promise.all(names.filter((name) => RUN_ID.test(name)).map((name) => summarizeRun(context, name))),
    listStoredRuns(context),
  ]);
  const runs = mergeStored(
    found.filter((run): run is RunSummary => run !== undefined),
    stored.runs,
  ).sort((a, b) => b.modifiedAt.localeCompare(a.modifiedAt));
  return {
    runsDir: context.runsDir,
    runs: runs.slice(0, MAX_RUNS),
    ...(context.store ? { store: { url: context.store.label, ...(stored.problem ? { problem: stored.problem } : {}) } } : {}),
  };
}

/**
 * A task the store's worker ran with this run folder leaves both a trace here and a row in the store: one line,
 * the store's kind and status with the trace's figures, newest time of the two (not two lines of one id, the
 * first decided by which of them was written last).
 */
function mergeStored(found: RunSummary[], stored: RunSummary[]): RunSummary[] {
  const storedById = new Map(stored.map((run) => [run.id, run]));
  const merged = found.map((run) => {
    const row = storedById.get(run.id);
    if (!row) return run;
    storedById.delete(run.id);
    return { ...run, ...row, modifiedAt: row.modifiedAt > run.modifiedAt ? row.modifiedAt : run.modifiedAt };
  });
  return [...merged, ...storedById.values()];
}

async function listStoredRuns(context: StudioContext): Promise<{ runs: RunSummary[]; problem?: string }> {
  if (!context.store) return { runs: [] };
  try {
    const runs = await context.store.monitor.runs(MAX_STORED_RUNS);
    return {
      runs: runs.map((run) => ({
        id: run.id,
        kind: run.kind === 'task' ? 'stored-task' : 'stored-run',
        status: run.status,
        ...(run.executorId ? { executorId: run.executorId } : {}),
        modifiedAt: run.updatedAt ?? run.createdAt,
        title: context.redact(run.title),
        ...(run.success === undefined ? {} : { success: run.success }),
        ...(run.error ? { error: context.redact(run.error) } : {}),
      })),
    };
  } catch (error) {
    return { runs: [], problem: `the store ${context.store.label} cannot be read: ${errorMessage(error)}` };
  }
}

/** One run: a task's trace events (steps, model replies, tool calls, budgets) or a code run's record. */
export async function getRun(context: StudioContext, id: string): Promise<unknown> {
  if (!RUN_ID.test(id)) throw new StudioError('STUDIO_BAD_REQUEST', `"${id}" is not a run id (a folder name under ${context.runsDir})`);
  const dir = path.join(context.runsDir, id);
  const trace = path.join(dir, 'trace.jsonl');
  if (await exists(trace)) {
    try {
      const recorded = await readTrace(trace);
      return { id, kind: 'task', file: trace, task: recorded.task, model: recorded.model, events: recorded.events };
    } catch (error) {
      throw new StudioError('STUDIO_BAD_REQUEST', `run "${id}": ${errorMessage(error)}`, { cause: error });
    }
  }
  const record = path.join(dir, 'code-run.json');
  if (await exists(record)) return { id, kind: 'code-run', file: record, ...(JSON.parse(await readFile(record, 'utf8')) as object) };
  const stored = await context.store?.monitor.run(id);
  if (stored)
    return context.redact({ ...stored, kind: stored.kind === 'task' ? 'stored-task' : 'stored-run', store: context.store?.label });
  throw new StudioError(
    'STUDIO_NOT_FOUND',
    `no run "${id}" under ${context.runsDir} (neither trace.jsonl nor code-run.json)${context.store ? ` nor in the store ${context.store.label}` : ''}`,
  );
}

/**
 * Replays a task: its recorded model replies are re-run against the tools (no model is asked), as
 * `agent-spaces task --replay` does; the replay is a new run with its own trace.
 */
export async function replayRun(context: StudioContext, id: string): Promise<ReplayView> {
  if (!RUN_ID.test(id)) throw new StudioError('STUDIO_BAD_REQUEST', `"${id}" is not a run id (a folder name under ${context.runsDir})`);
  const trace = path.join(context.runsDir, id, 'trace.jsonl');
  if (!(await exists(trace)))
    throw new StudioError('STUDIO_NOT_FOUND', `run "${id}" has no trace.jsonl to replay (only planner tasks can be replayed)`);
  const recorded = await readTrace(trace);
  const taskId = `replay-${randomUUID()}`;
  const result = await executeTask(recorded.task, {
    space: context.space,
    replay: recorded.replies,
    model: { model: recorded.model },
    taskId,
  });
  return { id: taskId, success: result.success, summary: context.redact(result.finalSummary), error: context.redact(result.error) };
}

async function summarizeRun(context: StudioContext, id: string): Promise<RunSummary | undefined> {
  const dir = path.join(context.runsDir, id);
  const trace = path.join(dir, 'trace.jsonl');
  const record = path.join(dir, 'code-run.json');
  try {
    if (await exists(trace)) {
      const { events, task } = await readTrace(trace);
      // A task taken over by another worker has an attempt's events after another's in one trace: the
      // outcome is the last attempt's finish (an earlier attempt's was not the run's: its worker stopped).
      const lastStart = Math.max(
        0,
        events.findLastIndex((event) => event.type === 'task-start'),
      );
      const finish = events
        .slice(lastStart)
        .find((event): event is Extract<PlannerEvent, { type: 'task-finish' }> => event.type === 'task-finish');
      const steps = events.filter((event) => event.type === 'model-reply').length;
      return {
        id,
        kind: 'task',
        modifiedAt: (await stat(trace)).mtime.toISOString(),
        title: task,
        ...(finish ? { success: finish.success, costUsd: finish.usage.llmCostUsd, calls: finish.usage.toolCalls } : {}),
        steps,
        ...(finish?.error ? { error: finish.error } : {}),
      };
    }
    if (await exists(record)) {
      const data = JSON.parse(await readFile(record, 'utf8')) as Partial<CodeRunView>;
      return {
        id,
        kind: 'code-run',
        modifiedAt: (await stat(record)).mtime.toISOString(),
        title: codeRunTitle(data),
        ...(data.result?.success !== undefined ? { success: data.result.success } : {}),
        ...(data.result?.calls !== undefined ? { calls: data.result.calls } : {}),
        ...(data.result?.durationMs !== undefined ? { durationMs: data.result.durationMs } : {}),
        ...(data.result?.error?.message
          ? { error: `${data.result.error.code ? `${data.result.error.code}: ` : ''}${data.result.error.message}` }
          : {}),
      };
    }
  } catch (error) {
    return { id, kind: 'task', modifiedAt: new Date(0).toISOString(), title: id, error: `unreadable: ${errorMessage(error)}` };
  }
  return undefined;
}

/** Longest title of a run in the list. */
const MAX_TITLE = 100;

/**
 * What a code run did, in a line: the name its user gave it; else its first capability call (and how
 * many more); else the program's first statement that is neither an import nor a comment.
 */
export function codeRunTitle(run: Partial<Pick<CodeRunView, 'name' | 'calls' | 'code'>>): string {
  if (run.name) return cut(run.name);
  const [first, ...more] = Array.isArray(run.calls) ? run.calls : [];
  if (first) {
    const rest = more.length === 0 ? '' : ` and ${more.length} more call${more.length === 1 ? '' : 's'}`;
    return `${cut(`${first.capability}.${first.function}(${first.args})`, MAX_TITLE - rest.length)}${rest}`;
  }
  const statement = (run.code ?? '')
    .split('\n')
    .map((line) => line.trim())
    .find(
      (line) => line !== '' && !line.startsWith('//') && !line.startsWith('import ') && !line.startsWith('/*') && !line.startsWith('*'),
    );
  return statement ? cut(statement) : 'a program that made no capability call';
}

function cut(text: string, max = MAX_TITLE): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}

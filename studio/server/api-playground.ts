import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunLog, RunResult } from '../../core/index.js';
import { submitRun } from '../../store/index.js';
import type { StudioContext, TimelineCall } from './studio-context.js';
import type { CheckView, CodeRunView } from './wire-types.js';

/** Longest name a user may give a run (the runs pane lists runs by it). */
export const MAX_RUN_NAME = 200;
import { followStoredRun, type StudioStore } from './studio-store.js';

/**
 * Diagnostics of a program from the type-checker `run` uses, against the built declarations. A
 * statement the sandbox refuses (an import of node:fs, a require) is reported at its line with no
 * code: it is no TypeScript error (the checker marks it 0, a stopped check -1), so no fake "TS0".
 */
export async function checkProgram(context: StudioContext, code: string): Promise<CheckView> {
  const diagnostics = await context.space.check(code);
  return { diagnostics: diagnostics.map(({ code: number, ...rest }) => (number > 0 ? { ...rest, code: number } : rest)) };
}

/**
 * Runs a program the way `agent-spaces run` does (type-check, sandbox, the one bridge), streams its logs
 * and calls as events, and records it under the run folder so the runs pane lists it.
 */
export async function runProgram(context: StudioContext, code: string, name?: string): Promise<CodeRunView> {
  const runId = `studio-${randomUUID()}`;
  const startedAt = new Date().toISOString();
  if (context.store) return runInStore(context, context.store, runId, code, name);
  const calls: TimelineCall[] = [];
  context.timelines.set(runId, calls);
  let result;
  try {
    result = context.redact(
      await context.space.run(code, {
        runId,
        onLog: (log: RunLog) => context.events.publish({ type: 'run-log', runId, level: log.level, message: context.redact(log).message }),
      }),
    );
  } finally {
    context.timelines.delete(runId);
  }
  context.events.publish({ type: 'run-end', runId, success: result.success });
  const record: CodeRunView = { kind: 'code-run', runId, startedAt, code, ...(name ? { name } : {}), result, calls };
  await writeRecord(context, record);
  return record;
}

async function writeRecord(context: StudioContext, record: CodeRunView): Promise<void> {
  const dir = path.join(context.runsDir, record.runId);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'code-run.json');
  // Written whole, then renamed: the runs pane never reads half a record.
  await writeFile(`${file}.tmp`, JSON.stringify(record, null, 2));
  await rename(`${file}.tmp`, file);
}

/**
 * With a store, the program goes to the store's queue and a worker runs it, as `agent-spaces run
 * --store` does: its log lines, the worker taking it (or taking it over), its approvals (in the
 * inbox) and its result come back as events. With no worker alive, the page is told at once; the
 * run waits in the store for one. The record stays in the store (the runs pane reads it there).
 */
async function runInStore(
  context: StudioContext,
  store: StudioStore,
  runId: string,
  code: string,
  name: string | undefined,
): Promise<CodeRunView> {
  const startedAt = new Date().toISOString();
  const followed = followStoredRun(store, context.events, context.redact, runId);
  let submitted: RunResult & { runId: string };
  try {
    submitted = await submitRun(
      { store: store.url, code, runId, signal: followed.signal, onEvent: followed.onEvent, onNoWorker: followed.onNoWorker },
      store.connection,
    );
  } finally {
    followed.done();
  }
  const { runId: _runId, ...result } = context.redact(submitted);
  context.events.publish({ type: 'run-end', runId, success: result.success });
  return {
    kind: 'code-run',
    runId,
    startedAt,
    code,
    ...(name ? { name } : {}),
    result,
    calls: [],
    ...(followed.worker ? { worker: followed.worker } : {}),
  };
}

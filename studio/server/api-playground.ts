import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunLog } from '../../core/index.js';
import type { StudioContext, TimelineCall } from './studio-context.js';

/** Diagnostics of a program from the type-checker `run` uses, against the built declarations. */
export async function checkProgram(context: StudioContext, code: string): Promise<unknown> {
  return { diagnostics: await context.space.check(code) };
}

/** What a code run of the studio leaves in `<outDir>/runs/<runId>/code-run.json`. */
export interface CodeRunRecord {
  kind: 'code-run';
  runId: string;
  startedAt: string;
  code: string;
  result: unknown;
  calls: TimelineCall[];
}

/**
 * Runs a program the way `agent-spaces run` does (type-check, sandbox, the one bridge), streams its logs
 * and calls as events, and records it under the run folder so the runs pane lists it.
 */
export async function runProgram(context: StudioContext, code: string): Promise<CodeRunRecord> {
  const runId = `studio-${randomUUID()}`;
  const startedAt = new Date().toISOString();
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
  const record: CodeRunRecord = { kind: 'code-run', runId, startedAt, code, result, calls };
  await writeRecord(context, record);
  return record;
}

async function writeRecord(context: StudioContext, record: CodeRunRecord): Promise<void> {
  const dir = path.join(context.runsDir, record.runId);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'code-run.json');
  // Written whole, then renamed: the runs pane never reads half a record.
  await writeFile(`${file}.tmp`, JSON.stringify(record, null, 2));
  await rename(`${file}.tmp`, file);
}

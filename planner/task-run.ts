import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Catalog } from './catalog-types.js';
import type { CallAccess } from '../core/index.js';
import type { Space, StoredResult } from '../space/index.js';
import { describeUsage, type BudgetUsage } from './budget.js';
import type { Redactor } from '../core/index.js';
import type { EmitPlannerEvent } from './planner-event.js';
import { summarizePayload, type PayloadSummary } from './summarize-payload.js';
import type { RawOutput } from './task-types.js';

/**
 * What one task's actions share while it runs. No field is reassigned: the usage counters grow and the
 * logs, outputs and stored results are appended to as steps and calls are made. The current step is
 * `usage.steps`.
 */
export interface TaskRun {
  readonly taskId: string;
  /** The session-state scope of its runs and calls (`@capabilities/session`). */
  readonly session: string;
  readonly space: Space;
  /** The catalog the model may see (after `tools.allow`). */
  readonly catalog: Catalog;
  /** The functions the model may call, when the caller restricted them; the bridge enforces it. */
  readonly access: CallAccess | undefined;
  readonly usage: BudgetUsage;
  readonly redactor: Redactor;
  readonly emit: EmitPlannerEvent;
  readonly logs: string[];
  readonly rawOutputs: RawOutput[];
  readonly runDir: string;
  /** The results stored so far, by storageRef: what this task's code may read back (`@capabilities/task-storage`). */
  readonly stored: Map<string, StoredResult>;
  readonly summarizeAboveChars: number;
  readonly signal: AbortSignal | undefined;
}

/** A value as the model will see it: redacted, and summarised + stored when it is large. */
export interface PresentedValue {
  value?: unknown;
  summary?: PayloadSummary;
}

export function log(run: TaskRun, line: string): void {
  run.logs.push(run.redactor.text(`step ${run.usage.steps}: ${line}`));
}

/** Redacts a value; when its JSON passes the threshold, stores it under the run folder and summarises it. */
export function presentValue(run: TaskRun, label: string, value: unknown): PresentedValue {
  const redacted = run.redactor(value);
  const json = JSON.stringify(redacted) ?? 'null';
  if (json.length <= run.summarizeAboveChars) return { value: redacted ?? null };
  const storageRef = storePayload(run, label, json);
  const summary = summarizePayload(label, redacted, { maxChars: Math.max(800, Math.floor(run.summarizeAboveChars / 2)), storageRef });
  run.emit({ type: 'summary-created', label, originalChars: json.length, storageRef });
  return { summary };
}

/** Writes a (redacted) payload to `<runDir>/results/step-<n>-<label>.json` and returns the path. */
export function storePayload(run: TaskRun, label: string, json: string): string {
  const dir = path.join(run.runDir, 'results');
  mkdirSync(dir, { recursive: true });
  const slug =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'result';
  let file = path.join(dir, `step-${run.usage.steps}-${slug}.json`);
  for (let n = 2; existsSync(file); n++) file = path.join(dir, `step-${run.usage.steps}-${slug}-${n}.json`);
  writeFileSync(file, json);
  run.stored.set(file, { ref: file, label, step: run.usage.steps, chars: json.length });
  return file;
}

/** The tool message content: JSON with the outcome and the budget line the prompt promises. */
export function toolContent(run: TaskRun, outcome: Record<string, unknown>): string {
  return JSON.stringify({ ...outcome, budget: describeUsage(run.usage) });
}

export function currentUsage(usage: BudgetUsage): BudgetUsage {
  return structuredClone(usage);
}

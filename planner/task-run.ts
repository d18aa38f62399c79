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

/** The state of one task while it runs, shared by the loop and the actions. */
export interface TaskRun {
  taskId: string;
  space: Space;
  /** The catalog the model may see (after `tools.allow`). */
  catalog: Catalog;
  /** The functions the model may call, when the caller restricted them; the bridge enforces it. */
  access: CallAccess | undefined;
  usage: BudgetUsage;
  step: number;
  redactor: Redactor;
  emit: EmitPlannerEvent;
  logs: string[];
  rawOutputs: RawOutput[];
  runDir: string;
  /** The results stored so far, by storageRef: what this task's code may read back (`@capabilities/task-storage`). */
  stored: Map<string, StoredResult>;
  summarizeAboveChars: number;
  signal: AbortSignal | undefined;
  /** The current step's span: code runs and direct calls are its children. */
  traceparent?: string;
}

/** A value as the model will see it: redacted, and summarised + stored when it is large. */
export interface PresentedValue {
  value?: unknown;
  summary?: PayloadSummary;
}

export function log(run: TaskRun, line: string): void {
  run.logs.push(run.redactor.text(`step ${run.step}: ${line}`));
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
  const slug = label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'result';
  let file = path.join(dir, `step-${run.step}-${slug}.json`);
  for (let n = 2; existsSync(file); n++) file = path.join(dir, `step-${run.step}-${slug}-${n}.json`);
  writeFileSync(file, json);
  run.stored.set(file, { ref: file, label, step: run.step, chars: json.length });
  return file;
}

/** The tool message content: JSON with the outcome and the budget line the prompt promises. */
export function toolContent(run: TaskRun, outcome: Record<string, unknown>): string {
  return JSON.stringify({ ...outcome, budget: describeUsage(run.usage) });
}

export function currentUsage(usage: BudgetUsage): BudgetUsage {
  return structuredClone(usage);
}

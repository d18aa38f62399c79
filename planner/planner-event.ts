import type { Budget, BudgetLimit, BudgetUsage } from './budget.js';
import type { ModelReply } from './model-client.js';

interface EventBase {
  taskId: string;
  /** The step (model reply) the event belongs to, 1-based; 0 before the first. */
  step: number;
  timestamp: string;
}

/**
 * Telemetry of a task, to `onEvent` and (as JSON lines) to the trace file. Everything in an event is
 * redacted. The `model-reply` events carry the replies a replay needs.
 */
export type PlannerEvent = EventBase &
  (
    | { type: 'task-start'; task: string; model: string; baseURL: string; budget: Budget }
    | { type: 'model-reply'; reply: ModelReply; costUsd: number; usage: BudgetUsage; note?: string }
    | { type: 'search-run'; query: string; detailLevel: string; matches: number; total: number }
    | { type: 'tool-call'; name: string; ok: boolean; durationMs: number; error?: { code: string; message: string } }
    /** A function call of the model that could not be performed as sent (bad JSON, unknown function, bad field). */
    | { type: 'call-rejected'; function: string; message: string }
    | { type: 'code-run'; ok: boolean; calls: number; durationMs: number; counted: boolean; error?: { code: string; message: string } }
    | { type: 'summary-created'; label: string; originalChars: number; storageRef: string | null }
    | { type: 'budget-exceeded'; limit: BudgetLimit; message: string; usage: BudgetUsage }
    | { type: 'task-finish'; success: boolean; summary: string; error: string | null; usage: BudgetUsage }
  );

export type PlannerEventType = PlannerEvent['type'];

export type PlannerEventListener = (event: PlannerEvent) => void;

/** Distributes an event: all of them are built `Omit<…, base>` and stamped here. */
export type EmitPlannerEvent = (event: DistributiveOmit<PlannerEvent, keyof EventBase>) => void;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

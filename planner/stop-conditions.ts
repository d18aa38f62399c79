import { errorMessage } from '../core/index.js';
import type { BudgetLimit, BudgetUsage } from './budget.js';
import type { TaskStep } from './task-step.js';

/** Why a task stopped. */
export type TaskStop =
  | { readonly kind: 'finished'; readonly summary: string; readonly result?: unknown }
  | { readonly kind: 'budget'; readonly limit: BudgetLimit }
  | { readonly kind: 'cancelled'; readonly reason: string }
  | { readonly kind: 'failed'; readonly error: string };

/** What a stop condition looks at: the steps so far (the one in progress last) and the budget used. */
export interface StopState {
  readonly steps: readonly TaskStep[];
  readonly usage: BudgetUsage;
}

/**
 * A predicate over the steps: the reason to stop, or undefined to go on. The loop checks one list before
 * each step and another after the reply and each call of a step (the shape of the AI SDK's `stopWhen`,
 * answering why instead of a boolean, since the reason becomes the task's error).
 */
export type StopCondition = (state: StopState) => TaskStop | undefined;

/** Stops once `count` steps were made (the budget's `maxSteps`): checked before a step, so `count` steps run. */
export function stepCountIs(count: number): StopCondition {
  return ({ steps }) => (steps.length >= count ? { kind: 'budget', limit: 'maxSteps' } : undefined);
}

/** Stops once the estimated model cost is over `maxUsd` (the budget's `maxLlmCostUsd`). */
export function costExceeds(maxUsd: number): StopCondition {
  return ({ usage }) => (usage.llmCostUsd > maxUsd ? { kind: 'budget', limit: 'maxLlmCostUsd' } : undefined);
}

/** Stops once the caller's signal is aborted. */
export function isCancelled(signal: AbortSignal | undefined): StopCondition {
  return () => (signal?.aborted ? cancelledBy(signal) : undefined);
}

/** Stops when the last call of the step in progress was `finish`. */
export const finishCalled: StopCondition = ({ steps }) => {
  const finish = lastCall(steps)?.outcome.finish;
  return finish ? { kind: 'finished', ...finish } : undefined;
};

/** Stops when the last call of the step in progress ran into a budget limit (tool calls, code runs). */
export const callBreachedBudget: StopCondition = ({ steps }) => {
  const limit = lastCall(steps)?.outcome.breach;
  return limit ? { kind: 'budget', limit } : undefined;
};

/** The first condition's answer, in the order given. */
export function firstStop(conditions: readonly StopCondition[], state: StopState): TaskStop | undefined {
  for (const condition of conditions) {
    const stop = condition(state);
    if (stop) return stop;
  }
  return undefined;
}

export function cancelledBy(signal: AbortSignal): TaskStop {
  return { kind: 'cancelled', reason: errorMessage(signal.reason ?? 'the signal was aborted') };
}

function lastCall(steps: readonly TaskStep[]) {
  return steps.at(-1)?.calls.at(-1);
}

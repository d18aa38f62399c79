/** Limits of one task. Every limit is checked before each step and after each model reply. */
export interface Budget {
  /** Model replies (each reply is one step). */
  maxSteps: number;
  /** Capability calls, direct and from inside code runs together. */
  maxToolCalls: number;
  /** Code runs that got past the type-check. */
  maxCodeRuns: number;
  /** Estimated model cost in US dollars. */
  maxLlmCostUsd: number;
}

export const DEFAULT_BUDGET: Readonly<Budget> = Object.freeze({ maxSteps: 10, maxToolCalls: 30, maxCodeRuns: 3, maxLlmCostUsd: 0.5 });

/** What a task has used so far. */
export interface BudgetUsage {
  steps: number;
  toolCalls: number;
  codeRuns: number;
  llmCostUsd: number;
  tokens: { input: number; cachedInput: number; output: number };
  /** The limits in force. */
  limits: Budget;
}

export type BudgetLimit = 'maxSteps' | 'maxToolCalls' | 'maxCodeRuns' | 'maxLlmCostUsd';

/** Merges overrides onto the defaults, refusing values that are not positive numbers. */
export function resolveBudget(overrides: Partial<Budget> = {}): Budget {
  const budget = { ...DEFAULT_BUDGET };
  for (const key of Object.keys(DEFAULT_BUDGET) as BudgetLimit[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`budget.${key} must be a number ≥ 0 (got ${String(value)})`);
    }
    budget[key] = value;
  }
  return budget;
}

export function emptyUsage(limits: Budget): BudgetUsage {
  return { steps: 0, toolCalls: 0, codeRuns: 0, llmCostUsd: 0, tokens: { input: 0, cachedInput: 0, output: 0 }, limits };
}

/** One line for the model and the progress log: `step 3/10, tool calls 4/30, code runs 1/3, $0.0021/$0.50`. */
export function describeUsage(usage: BudgetUsage): string {
  const { limits } = usage;
  return `step ${usage.steps}/${limits.maxSteps}, tool calls ${usage.toolCalls}/${limits.maxToolCalls}, code runs ${usage.codeRuns}/${limits.maxCodeRuns}, $${usage.llmCostUsd.toFixed(4)}/$${limits.maxLlmCostUsd}`;
}

/** The message of a breach, naming the limit. */
export function describeBreach(limit: BudgetLimit, usage: BudgetUsage): string {
  const { limits } = usage;
  switch (limit) {
    case 'maxSteps':
      return `budget exceeded: maxSteps (${limits.maxSteps} model steps used without finishing)`;
    case 'maxToolCalls':
      return `budget exceeded: maxToolCalls (${usage.toolCalls} of ${limits.maxToolCalls} tool calls used)`;
    case 'maxCodeRuns':
      return `budget exceeded: maxCodeRuns (${limits.maxCodeRuns} code runs used, another was asked for)`;
    case 'maxLlmCostUsd':
      return `budget exceeded: maxLlmCostUsd ($${usage.llmCostUsd.toFixed(4)} spent, limit $${limits.maxLlmCostUsd})`;
  }
}

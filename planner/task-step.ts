import type { ModelReply } from './model-client.js';
import type { CallOutcome } from './perform-tool-call.js';

/** One function call of a step and what performing it led to. */
export interface StepCall {
  /** The id the model gave the call (the tool message answering it carries the same id). */
  readonly id: string;
  readonly outcome: CallOutcome;
}

/** One step of a task: a model reply and the calls performed for it, in order. */
export interface TaskStep {
  /** 1-based, as in events and logs. */
  readonly number: number;
  readonly reply: ModelReply;
  /** The reply's estimated cost in US dollars (0 for a model without a known price). */
  readonly costUsd: number;
  /** The calls performed so far; a step that stopped the task has not performed the calls after the one that stopped it. */
  readonly calls: readonly StepCall[];
}

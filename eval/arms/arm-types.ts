import type { Budget } from '../../planner/index.js';
import type { Space } from '../../space/index.js';
import type { TokenCounter } from '../count-tokens.js';
import type { EvalSuite, EvalTask } from '../suite.js';

/** The arms an eval compares. */
export type Arm = 'direct' | 'code' | 'planner';
export const ARMS: readonly Arm[] = ['direct', 'code', 'planner'];

/** The OpenAI-compatible endpoint every arm talks to. */
export interface ArmModel {
  model: string;
  baseURL: string;
  apiKey?: string;
}

export interface ArmInput {
  suite: EvalSuite;
  task: EvalTask;
  space: Space;
  model: ArmModel;
  budget: Budget;
  counter: TokenCounter;
  /** Where the arm may write files of its own (the planner's run folder and trace). */
  runDir: string;
  signal?: AbortSignal;
}

/** What one arm did on one task, before the suite's check. */
export interface ArmOutcome {
  /** The agent's final answer to the customer (the planner's finish summary). */
  answer: string;
  /** Model requests. */
  turns: number;
  promptTokens: number;
  completionTokens: number;
  /** True when some reply had no `usage` and its tokens were counted by the eval's tokenizer. */
  tokensCounted: boolean;
  /** Capability calls (direct, or inside code runs). */
  toolCalls: number;
  codeRuns: number;
  /** Round trips spent finding functions (search_tools, get_types). */
  searches: number;
  /** The task stopped without an answer (budget, model or host failure). */
  error?: string;
  /** The conversation (messages, or the planner's events). */
  transcript: unknown[];
}

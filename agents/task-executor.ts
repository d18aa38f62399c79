import type { CatalogEntry } from '../compiler/index.js';
import { executeTask } from '../planner/index.js';
import type { Space } from '../space/index.js';
import type { AgentModel } from './resolve-agent-model.js';

/**
 * What an agent session needs from the planner's `executeTask` (a structural subset of its options and
 * result, so any planner with this shape can run agents — tests included).
 */
export interface AgentTaskOptions {
  space?: Space;
  model?: AgentModel;
  signal?: AbortSignal;
  onEvent?: (event: { type: string }) => void;
  context?: string;
  systemPrompt?: string;
  tools?: { allow?: (entry: CatalogEntry) => boolean };
  budget?: { maxSteps?: number; maxToolCalls?: number; maxCodeRuns?: number; maxLlmCostUsd?: number };
  /** The caller's W3C trace context (an A2A message's `metadata.traceparent`): the task's span is its child. */
  traceparent?: string;
}

export interface AgentTaskResult {
  success: boolean;
  finalSummary: string;
  result?: unknown;
  error?: unknown;
}

export type TaskExecutor = (task: string, options: AgentTaskOptions) => Promise<AgentTaskResult>;

/** The planner's `executeTask`: what runs an agent's sessions unless told otherwise. */
export const defaultTaskExecutor: TaskExecutor = executeTask;

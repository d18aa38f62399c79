import type { CatalogEntry } from './catalog-types.js';
import type { ApprovalHandler } from '../core/index.js';
import type { Space } from '../space/index.js';
import type { Budget, BudgetUsage } from './budget.js';
import type { ModelClient, ModelReply } from './model-client.js';
import type { PlannerEventListener } from './planner-event.js';
import type { ModelSettings } from './resolve-model-settings.js';
import type { PayloadSummary } from './summarize-payload.js';

export interface ExecuteTaskOptions {
  /** The space to use (left open). Otherwise one is created from `cwd`/`configFile` and closed at the end. */
  space?: Space;
  cwd?: string;
  configFile?: string;
  /** Overrides of the config's `model` and the environment. */
  model?: ModelSettings;
  /** Recorded model replies (see `readTrace`): no model is asked, the replies are re-run against the tools. */
  replay?: readonly ModelReply[];
  budget?: Partial<Budget>;
  signal?: AbortSignal;
  /** The W3C `traceparent` of the caller's span: the task's span becomes its child (see `telemetry` in the config). */
  traceparent?: string;
  /** For a space this call creates; a given space keeps its own. Without one, approvals are denied. */
  approvalHandler?: ApprovalHandler;
  onEvent?: PlannerEventListener;
  /** Extra context for the model, sent with the task. */
  context?: string;
  /** Instructions appended to the canonical planner prompt (an agent's prompt, rules, references). */
  systemPrompt?: string;
  /** Restricts which capability functions the model may find and call (search, direct calls and code). */
  tools?: { allow?: (entry: CatalogEntry) => boolean };
  /** Where large results and the default trace go (default `<outDir>/runs/<taskId>/`). */
  runDir?: string;
  /**
   * The JSON-lines trace (every event, with the model's replies) that `readTrace` + `replay` re-run.
   * Default `<runDir>/trace.jsonl`; `false` writes none.
   */
  trace?: string | false;
  /** The context size (characters of JSON) past which older steps are trimmed (default 60,000). */
  contextLimitChars?: number;
  /** Results larger than this (characters of JSON) are summarised and stored (default 4,000). */
  summarizeAboveChars?: number;
  /** Task id (default: a random UUID). */
  taskId?: string;
  /**
   * The session-state scope of the task's code runs and direct calls (`@capabilities/session`); default
   * `task:<taskId>`, so the steps of one task (a durable task resumed on another worker too) share state.
   */
  session?: string;
  /**
   * Wraps the model client (a durable task answers the replies it already received from its store, so
   * a task taken over after a crash pays no model call twice).
   */
  wrapModelClient?: (client: ModelClient) => ModelClient;
}

/** What one step produced, redacted; large values are replaced by their summary and storageRef. */
export interface RawOutput {
  step: number;
  kind: 'search' | 'tool-call' | 'code-run';
  /** The query, the tool id, or `run_code`. */
  name: string;
  ok: boolean;
  value?: unknown;
  summary?: PayloadSummary;
  error?: string;
}

export interface TaskResult {
  taskId: string;
  success: boolean;
  /** The model's summary; on failure, what was done before it stopped. */
  finalSummary: string;
  /** `finish`'s `result`, when the model gave one. */
  result?: unknown;
  rawOutputs: RawOutput[];
  budgetUsage: BudgetUsage;
  /** Human-readable lines, one per action, redacted. */
  logs: string[];
  error: string | null;
  /** The folder holding stored payloads (and the trace, unless `trace` named another file). */
  runDir: string;
}

/**
 * The shapes the studio's API sends, written once: the server builds them, the page (studio/ui) reads
 * them. No imports: the page's compile unit (browser types only) takes them from here too, type-only.
 */

/** One call of a run, as the playground's timeline shows it. */
export interface TimelineCall {
  callId: string;
  capability: string;
  function: string;
  /** The arguments as JSON text, cut to a preview (a timeline never holds a call's whole payload). */
  args: string;
  /** Milliseconds since the epoch. */
  startedAt: number;
  durationMs?: number;
  ok?: boolean;
  error?: { code: string; message: string };
}

/** A finished planner task as `POST /api/task` answers it. */
export interface TaskRunView {
  taskId: string;
  success: boolean;
  summary: string;
  result?: unknown;
  error: string | null;
  steps: number;
  logs: string[];
  /** A task of the store: the worker that finished it and its attempts (more than one: taken over). */
  worker?: { executorId: string; attempts: number };
}

/** A type error in the program's own coordinates (1-based). */
export interface Diagnostic {
  line: number;
  column: number;
  /** TypeScript's error number; absent for a statement the sandbox refuses (an import of node:fs, a require) or a check that was stopped. */
  code?: number;
  message: string;
}

/** Why a run failed: a code the program can test, the message, and where in the program when known. */
export interface RunErrorView {
  name: string;
  message: string;
  code: string;
  line?: number;
  column?: number;
  capability?: string;
  function?: string;
  diagnostics?: Diagnostic[];
}

export interface RunResultView {
  success: boolean;
  result: unknown;
  logs: { level: string; message: string }[];
  error?: RunErrorView;
  timedOut: boolean;
  calls: number;
  durationMs: number;
}

/**
 * A code run of the studio, as `POST /api/run` answers it and as it is kept in
 * `<outDir>/runs/<runId>/code-run.json`.
 */
export interface CodeRunView {
  kind: 'code-run';
  runId: string;
  startedAt: string;
  code: string;
  /** The name the user gave the run (the runs pane lists it by this). */
  name?: string;
  result: RunResultView;
  calls: TimelineCall[];
  /** A run of the store: the worker that finished it and its attempts (more than one: taken over). */
  worker?: { executorId: string; attempts: number };
}

/** One line of the runs pane (`GET /api/runs`). */
export interface RunSummary {
  id: string;
  /** `stored-run` / `stored-task`: a durable run of the store, whoever submitted it. */
  kind: 'task' | 'code-run' | 'stored-run' | 'stored-task';
  /** A stored run's status (DBOS's: ENQUEUED, PENDING, SUCCESS, ERROR, …) and its worker. */
  status?: string;
  executorId?: string;
  modifiedAt: string;
  /** What the run did, in a line: its name, its first capability call, or the task's words. */
  title: string;
  success?: boolean;
  steps?: number;
  calls?: number;
  costUsd?: number;
  durationMs?: number;
  error?: string;
}

/** `GET /api/runs`: the run folder's runs and, with a store, the store's. */
export interface RunListView {
  runsDir: string;
  runs: RunSummary[];
  store?: { url: string; problem?: string };
}

/** A durable run or task of the store, with the events its workers reported. */
export interface StoredRunView {
  id: string;
  kind: 'stored-run' | 'stored-task';
  status: string;
  createdAt: string;
  executorId?: string;
  code?: string;
  task?: string;
  result?: unknown;
  store: string;
  events: ({ kind: string } & Record<string, unknown>)[];
}

/**
 * Where a waiting call comes from: a run of the studio itself, or a process attached with `--studio`
 * (`agent-spaces run`, `task` or `serve`), with its process id, folder and what it runs.
 */
export type ApprovalOrigin =
  | { kind: 'studio' }
  | {
      kind: 'run' | 'task' | 'serve';
      pid: number;
      cwd: string;
      /** The program file, the task's words or the transport, cut short. */ detail?: string;
    }
  /** A durable run's call, waiting in the store (its address without the password); anyone reaching the store may decide it. */
  | { kind: 'store'; store: string };

/** A process attached with `--studio` (`agent-spaces run`, `task` or `serve`). */
export type AttachedOrigin = Extract<ApprovalOrigin, { kind: 'run' | 'task' | 'serve' }>;

/** A call waiting for a person's decision, as the inbox shows it. */
export interface PendingApprovalView {
  id: string;
  runId?: string;
  origin: ApprovalOrigin;
  capability: string;
  function: string;
  /** The exact arguments the call will be made with (redacted of the host's secrets). */
  params: unknown;
  message: string;
  timestamp: string;
  /** A stored approval's deadline: past it, the call is denied. */
  deadline?: string;
}

/** `GET /api/approvals`. */
export interface ApprovalListView {
  approvals: PendingApprovalView[];
  store?: { url: string; problem?: string };
}

/** `GET /api/space`: the space the studio serves. */
export interface SpaceView {
  root: string;
  outDir: string;
  runsDir: string;
  agents: number;
  /** The store's address (no password) and its live workers, or why it cannot be read. */
  store?: { url: string; workers?: string[]; problem?: string };
  model: { configured: boolean };
}

/**
 * `GET /api/starter`: what the playground opens on when the user has no program of their own yet — a
 * call of the space's own first capability that type-checks clean, or an empty program and a hint.
 */
export interface StarterProgram {
  code: string;
  /** The function the program calls. */
  from?: { module: string; function: string };
  hint: string;
}

export type JsonSchema = { [key: string]: unknown };

export interface FunctionView {
  id: string;
  name: string;
  toolName: string;
  description: string;
  signature: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  requiresApproval: boolean;
  rateLimit?: { requests: number; period: string };
  /** MCP's hints about the tool. */
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export interface ModuleView {
  module: string;
  namespace: string;
  description: string;
  source: { kind: string; path?: string; server?: string; exportName?: string };
  /** Where it comes from, as its source names it for a person (`MCP server "github"`, `standard library`). */
  title: string;
  /** The space's own module, not the standard library (with task-storage) that comes with every space. */
  own: boolean;
  config: { requiresApproval?: boolean; rateLimit?: { requests: number; period: string } };
  declarations: string;
  functions: FunctionView[];
}

export interface BuildView {
  at: string;
  durationMs: number;
  functions: number;
  sources: { source: string; status: string; modules: string[]; functions: number; message?: string }[];
  warnings: { source: string; capability?: string; function?: string; pointer?: string; message: string }[];
  errors: { source: string; message: string }[];
}

/** `GET /api/capabilities`. */
export interface CapabilitiesView {
  root: string;
  outDir: string;
  build: BuildView;
  modules: ModuleView[];
}

/** `GET /api/search?q=…&detail=…`: the planner's `search_tools` over the catalog, best match first. */
export interface SearchView {
  query: string;
  matches: {
    /** `<module>.<function>`. */
    id: string;
    module: string;
    function: string;
    score: number;
    signature?: string;
    description?: string;
    requiresApproval?: boolean;
  }[];
  total: number;
}

/** One agent directory of the config, as the agents pane lists it (`GET /api/agents`). */
export interface AgentEntryView {
  index: number;
  dir: string;
  name: string;
  description?: string;
  /** `tools`, another mode, or `invalid` (then `error` says why it does not load). */
  mode: string;
  tools?: number;
  error?: string;
}

export interface AgentListView {
  agents: AgentEntryView[];
}

/** A tool of a Tools-mode agent as its `tsagent.json` writes it (fields the editor does not know are kept). */
export type AgentToolView = { [key: string]: unknown } & { name: string; description: string; parameters: JsonSchema; prompt: string };

/** `GET /api/agents/<n>`: one agent's tools as written in its `tsagent.json`. */
export interface AgentToolsView {
  index: number;
  dir: string;
  name: string;
  tools: AgentToolView[];
  /** `tools`: a Tools-mode agent; `other`: its file has no `metadata.tools` yet. */
  mode: 'tools' | 'other';
}

/** `PUT /api/agents/<n>/tools`: the file written, how many tools it has, and what to do next. */
export interface AgentToolsSavedView {
  saved: string;
  tools: number;
  note: string;
}

/** `POST /api/agents/<n>/test`: one session of the agent with the edited tool — the prompt, its events, the answer or error. */
export interface AgentToolTestView {
  prompt: string;
  answer?: string;
  error?: string;
  events: Record<string, unknown>[];
  result?: unknown;
}

/** `POST /api/agents/<n>/check`: one edited tool as the loader sees it. */
export interface ToolCheckView {
  errors: { path: string; message: string }[];
  unknownPlaceholders: string[];
  warnings: string[];
  /** The prompt template split into text and placeholders (for highlighting). */
  parts: ({ kind: 'text'; text: string } | { kind: 'placeholder'; key: string; raw: string })[];
  /** The prompt filled with the sample values. */
  preview: string;
}

/** `POST /api/check`: the program's type errors (none: an empty list). */
export interface CheckView {
  diagnostics: Diagnostic[];
}

/** `POST /api/validate`: what is wrong with the arguments, by path (none: an empty list). */
export interface ValidationView {
  issues: { path: string; message: string }[];
}

/** `POST /api/call`: one direct call of a function, as the tester shows it. */
export interface CallView {
  request: { id: string; arguments: unknown };
  response: { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };
  durationMs: number;
}

/** One event of a planner task's trace (`task-start`, `model-reply`, `tool-call`, …) with its own fields. */
export type TraceEventView = { [key: string]: unknown } & { type: string; step: number; timestamp: string };

/** A planner task of the run folder, as its trace recorded it. */
export interface TaskTraceView {
  id: string;
  kind: 'task';
  /** The trace file. */
  file: string;
  task: string;
  model: string;
  events: TraceEventView[];
}

/** `GET /api/runs/<id>`: a task's trace, a code run's record (with its file), or a durable run of the store. */
export type RunView = TaskTraceView | (CodeRunView & { id: string; file: string }) | StoredRunView;

/** `POST /api/runs/<id>/replay`: the replay is a new run with its own trace. */
export interface ReplayView {
  id: string;
  success: boolean;
  summary: string;
  error?: string | null;
}

/** An eval arm's name (`agent-spaces eval --arms`). */
export type EvalArm = 'direct' | 'code' | 'planner';

/** What the eval measures of an arm on a task (means over repetitions; `success` a share 0–1). */
export interface EvalMetrics {
  success: number;
  turns: number;
  promptTokens: number;
  completionTokens: number;
  toolCalls: number;
  codeRuns: number;
  searches: number;
  wallMs: number;
  costUsd: number;
}

/** `GET /api/eval/runs`: the run folders under the eval folder, newest first. */
export interface EvalRunListView {
  evalDir: string;
  runs: EvalRunSummary[];
  /** Run folders not listed (only the 100 changed last are read). */
  more?: number;
}

export interface EvalRunSummary {
  id: string;
  suite?: string;
  model?: string;
  arms?: EvalArm[];
  tasks?: number;
  repeat?: number;
  startedAt?: string;
  /** Results written so far, of `expected` (tasks × arms × repeat). */
  results?: number;
  expected?: number;
  /** Per arm: runs and passes. */
  outcomes?: { arm: EvalArm; runs: number; successes: number }[];
  /** The folder cannot be read as a run (its run.json is missing or bad). */
  problem?: string;
}

/** Per arm over the run: means per task, and the total cost. */
export interface EvalArmView extends EvalMetrics {
  arm: EvalArm;
  runs: number;
  successes: number;
  totalCostUsd: number;
  tokensCounted: boolean;
}

export interface EvalTaskArmView extends EvalMetrics {
  runs: number;
  /** Why a run failed (the check's reasons, or the arm's error), from every repetition. */
  reasons: string[];
}

export interface EvalTaskView {
  taskId: string;
  /** Ground-truth calls. */
  calls: number;
  arms: Partial<Record<EvalArm, EvalTaskArmView>>;
  /** Largest over smallest prompt tokens among the arms. */
  spread: number;
  /** The arms do not all have the same outcome. */
  outcomesDiffer: boolean;
}

/** `GET /api/eval/runs/<id>`: one run's report. */
export interface EvalRunView {
  id: string;
  dir: string;
  suite: string;
  model: string;
  arms: EvalArm[];
  repeat: number;
  startedAt: string;
  priceAs: string;
  budget: Record<string, unknown>;
  expected: number;
  armViews: EvalArmView[];
  tasks: EvalTaskView[];
  goals: { goal: string; met: boolean; detail: string }[];
  /** Files of the folder that were left out, each with what was wrong. */
  problems: string[];
}

/** One step of a transcript, in order: what was said, called, run and answered. */
export interface EvalTranscriptEntry {
  kind: 'system' | 'user' | 'assistant' | 'tool-call' | 'search' | 'code' | 'tool-result' | 'code-result' | 'answer' | 'event';
  /** A function or tool name, an event type. */
  title?: string;
  text: string;
  ok?: boolean;
}

/** `GET /api/eval/runs/<id>/transcripts/<arm>/<task>/<repetition>`. */
export interface EvalTranscriptView {
  runId: string;
  arm: EvalArm;
  taskId: string;
  repetition: number;
  success?: boolean;
  reasons: string[];
  answer?: string;
  entries: EvalTranscriptEntry[];
  /** Entries or texts were cut to keep the page light. */
  truncated: boolean;
}

/** A metric before, after, and after minus before (absent where one run lacks the arm or task). */
export interface EvalDelta {
  before?: EvalMetrics;
  after?: EvalMetrics;
  delta?: EvalMetrics;
}

/** `GET /api/eval/compare?before=<id>&after=<id>`: two runs, per arm and per task. */
export interface EvalComparisonView {
  before: EvalRunSummary;
  after: EvalRunSummary;
  arms: ({ arm: EvalArm } & EvalDelta)[];
  tasks: { taskId: string; arms: Partial<Record<EvalArm, EvalDelta>>; outcomeChanged: boolean }[];
}

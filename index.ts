/**
 * Agent Spaces — let an LLM act by writing TypeScript against typed `@capabilities/*` modules.
 * The public API: named exports only. Node must run with `--no-node-snapshot` wherever an isolate
 * is created in-process (sandbox worker processes get the flag themselves).
 */

// Defining capabilities and configuration
export { defineFunction, defineTool, isToolDefinition } from './core/index.js';
export type { AnyFunctionDefinition, FunctionDefinition, InferSchema, SchemaInput, ToolCallContext, ToolDefinition } from './core/index.js';
export { defineConfig, loadConfig, resolveConfig } from './config/index.js';
export type { AgentSpacesConfigInput, LoadConfigOptions, McpServerConfig, ResolvedConfig } from './config/index.js';
export { agentSpacesHome, defineRegistry, loadRegistry, selectFromRegistry } from './config/index.js';
export type { Registry, RegistryInput } from './config/index.js';
export { createHost } from './space/index.js';
export type { Host, HostOptions, HostSpaceInfo, HostSpaceOptions } from './space/index.js';

// The shared vocabulary
export { AgentSpacesError, CompileError, ConfigError, SandboxError, SandboxTimeoutError, ToolCallError } from './core/index.js';
export type {
  ApprovalDecision,
  ApprovalHandler,
  ApprovalRequest,
  BridgeEvent,
  BridgeEventListener,
  CapabilityCallHandler,
  CapabilityCallParams,
  CapabilityManifest,
  CapabilitySpec,
  CompileWarning,
  Diagnostic,
  FunctionSpec,
  RunError,
  RunLog,
  RunResult,
  ToolCallErrorCode,
} from './core/index.js';

// A space: build, run, call, search — the usual entry point
export { createSpace, searchTools } from './space/index.js';
export type { DetailLevel, SearchToolsOptions, SearchToolsResult, Space, SpaceOptions, SpaceRunOptions, ToolMatch } from './space/index.js';

// The parts, for hosts that wire their own
export { buildCapabilities } from './space/index.js';
export type { BuildOptions, BuildProgressEvent, BuildResult, Catalog, CatalogEntry } from './compiler/index.js';
export { DEFAULT_MAX_MODULE_BYTES, type SandboxModulesReport } from './compiler/index.js';
export { createSandbox, createTypeChecker, runCode } from './runtime/index.js';
export { createSandboxPool } from './runtime/index.js';
export type { SandboxPool } from './runtime/index.js';
export type { Isolation, RunLimits, RunOptions, Sandbox, SandboxOptions, TypeChecker } from './runtime/index.js';
export { createBridge, createInProcessBackend, loadBuiltCapabilities } from './bridge/index.js';
export { redact, redactText } from './core/index.js';
export type { RedactOptions, Secret, SecretInput } from './core/index.js';
export type { Backend, BackendCall, Bridge, BridgeOptions } from './bridge/index.js';
export { createStdTools } from './std/index.js';
export type { StdToolsOptions } from './std/index.js';

// Capability sources: what createSpace({ sources }) and buildCapabilities({ sources }) take; one
// create…Source factory per kind (the constants filesSource, mcpSource, openapiSource are deprecated)
export { createFilesSource, createMcpSource, createOpenApiSource, filesSource, mcpSource, openapiSource } from './sources/index.js';
export { createSdkSource, schemaOfMembers, schemaOfType } from './sources/index.js';
export type { TypeSchema, TypeSchemaOptions } from './sources/index.js';
export type { SdkConfig } from './config/index.js';
export type {
  CapabilitySource,
  CapabilitySourceKind,
  ConnectContext,
  DiscoverContext,
  Discovery,
  FilesSourceOptions,
  McpSourceOptions,
} from './sources/index.js';
export { createStdSource, defaultSources } from './space/index.js';
export type { DefaultSourcesOptions, StdSourceOptions } from './space/index.js';
export { createSavedSource, saveProgram, SavedProgramError } from './space/index.js';
export type { SavedProgramMeta, SavedProgramReport, SaveProgramOptions } from './space/index.js';
export { createMemorySessionState, createSessionSource, DEFAULT_SESSION_LIMITS, SESSION_MODULE } from './space/index.js';
export type { SessionEntry, SessionLimits, SessionSetOutcome, SessionStateBacking } from './space/index.js';
export type { CapabilityOrigin, RawCapability, RawFunction, SourceFailure } from './core/index.js';
export { createAgentSource } from './agents/index.js';

// Serving a space over MCP
export { createAgentSpacesMcpServer, serveSpace } from './server/index.js';
export type { RunningServer, ServeOptions } from './server/index.js';
export { serveSpaces } from './server/index.js';
export type { RunningSpaces, ServedSpaceOptions, ServeSpacesOptions } from './server/index.js';

// Eval suites: what a suite's folder (suite.ts, its capabilities) imports to be run by `agent-spaces eval`
// From their own files, not eval/index.js: that one reaches the harness (the MCP client, the planner),
// which importing the package must not load (test/package-imports.test.ts).
export { defineSuite } from './eval/suite.js';
export { suiteEnvironment } from './eval/suite-environment.js';
export type { CallOutcome, CheckResult, EvalCall, EvalSuite, EvalTask } from './eval/suite.js';
export type { SuiteEnvironment } from './eval/suite-environment.js';

// The planner: a task in words → a structured result
export { DEFAULT_BUDGET, executeTask, ModelError, PLANNER_PROMPT, PLANNER_TOOLS, readTrace, summarizePayload } from './planner/index.js';
export type { Budget, BudgetUsage, ExecuteTaskOptions, PayloadSummary, PlannerEvent, RawOutput, TaskResult } from './planner/index.js';

// Agents: Tools-mode agent directories as capabilities, MCP and A2A servers, orchestration
export {
  createAgentRunner,
  fillPromptTemplate,
  loadAgent,
  loadAgentCapabilities,
  openSpace,
  serveA2A,
  serveAgent,
  serveAgents,
} from './agents/index.js';
export type {
  Agent,
  AgentCapabilities,
  AgentRunner,
  FilledTemplate,
  TemplateTool,
  RunningA2AServer,
  RunningAgentServer,
  RunningAgentsServer,
  ServeAgentOptions,
  ServeAgentsOptions,
} from './agents/index.js';

// Durable runs on a PostgreSQL store (DBOS): workers, submitting runs, approvals. DBOS and pg load
// only when one of these is called.
export { DurableError, openApprovals, openStore, resolveStoreUrl, submitRun } from './store/index.js';
export type {
  DurableErrorCode,
  DurableRunEvent,
  Store,
  StoreOptions,
  StoredApproval,
  StoredApprovals,
  StoredRuns,
  SubmitRunOptions,
  SubmitTaskOptions,
} from './store/index.js';
export { startWorker, submitTask } from './worker/index.js';
export type { DurableWorker, WorkerOptions } from './worker/index.js';

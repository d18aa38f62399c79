import type { ToolCallers } from './callers.js';
import type { InferredResult } from './inferred-result.js';
import type { JsonSchema } from './json-schema.js';

/**
 * The one intermediate representation every capability source compiles into: JSON tool files,
 * `defineTool()` modules, MCP servers, Tools-mode agents and the standard library.
 */
export interface CapabilityManifest {
  version: 1;
  capabilities: CapabilitySpec[];
  warnings: CompileWarning[];
}

/**
 * The origins there are, by kind, each with the fields that name it there. Core names none: each
 * source declares its own (`declare module '…/core/manifest.js' { interface CapabilityOrigins { openapi:
 * { api: string } } }`, beside the source in `sources/<kind>/`, `space/`, `agents/`), so adding a kind
 * edits nothing here and an origin's fields still narrow on its `kind`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface CapabilityOrigins {}

/**
 * Where a built capability comes from (`CapabilitySpec.source`): the kind of source and what names it
 * there (a tool file, an MCP server, an OpenAPI service, an agent directory, the standard library).
 */
export type CapabilityOrigin = {
  [Kind in keyof CapabilityOrigins & string]: { kind: Kind } & CapabilityOrigins[Kind];
}[keyof CapabilityOrigins & string];

export type RatePeriod = 'second' | 'minute' | 'hour' | 'day';

export interface RateLimit {
  requests: number;
  period: RatePeriod;
  /**
   * What a call past the limit does: `fail` at once with `RATE_LIMITED` (default), or `queue` — wait
   * for a slot (runs take turns; arrival order within a run), bounded by `maxWaitMs` and `maxQueue`,
   * then fail with `RATE_LIMITED`.
   * A waiting call leaves the queue when its run ends (cancelled or timed out).
   */
  onLimit?: 'fail' | 'queue';
  /** With `queue`: the longest a call waits for a slot (default 30,000 ms). */
  maxWaitMs?: number;
  /** With `queue`: the most calls of one run waiting at once for this capability (default 100). */
  maxQueue?: number;
}

export interface CapabilityConfig {
  /** Every function of the capability requires approval (a function may still say so on its own). */
  requiresApproval?: boolean;
  rateLimit?: RateLimit;
  /** Who may call the capability's functions (a function may say so on its own); absent: both. */
  callers?: ToolCallers;
}

/** One module `@capabilities/<module>`. */
export interface CapabilitySpec {
  /** kebab-case module name: `train-schedule`, `mcp-everything`, `agent-researcher`. */
  module: string;
  /** camelCase name of the namespace object the module exports: `trainSchedule`. */
  namespace: string;
  description?: string;
  version?: string;
  source: CapabilityOrigin;
  config: CapabilityConfig;
  functions: FunctionSpec[];
}

/** How a call's value is produced from what the backend returns. */
export type ResultKind =
  /** The handler's value, validated against `outputSchema` when there is one. */
  | 'value'
  /** MCP tool with an output schema: `structuredContent`. */
  | 'mcp-structured'
  /**
   * MCP tool without an output schema: the text content joined (the full result on request); with an
   * `inferredResult`, that text parsed as JSON.
   */
  | 'mcp-text';

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface FunctionSpec {
  /** The JavaScript name exported from the module (camelCase, never a reserved word). */
  name: string;
  /** The tool's original name, used by the bridge to perform the call. */
  toolName: string;
  description?: string;
  /** Always an object schema (`{type: "object", ...}`). */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  resultKind: ResultKind;
  requiresApproval?: boolean;
  /** A `{param}` template (JSON tools); TypeScript tools may compute it on the host instead. */
  approvalMessage?: string;
  /**
   * Who may call it: `code` (a program in the sandbox), `direct` (a direct tool call) or `both`. The
   * build resolves it from the function, its capability or server, and the space default; absent: both.
   */
  callers?: ToolCallers;
  annotations?: ToolAnnotations;
  /**
   * Whether the tool changes anything besides answering, from the config (`mcpServers.<name>.sideEffects`)
   * or else its annotations; absent: not known. Set on `mcp-text` functions, whose results may teach
   * their result type: a `side-effects` tool's results are never observed, and only a `read-only` one
   * may be sampled (`agent-spaces capabilities sample`).
   */
  effects?: 'read-only' | 'side-effects';
  /**
   * The result type learned from observed results (`mcp-text` functions only): the call resolves to
   * the text parsed as JSON, declared with this schema; a result that does not match it is reported
   * as drift (`result-drift`), not failed.
   */
  inferredResult?: InferredResult;
}

export interface CompileWarning {
  /** Where the problem comes from: a file path, `mcp:<server>`, `agent:<dir>`. */
  source: string;
  capability?: string;
  function?: string;
  /** A JSON pointer into the schema, when the warning concerns one part of it. */
  pointer?: string;
  message: string;
}

/** Files of the build output, relative to `outDir`. */
export const BUILD_LAYOUT = {
  capabilitiesDir: 'capabilities',
  declarationsFile: 'capabilities.d.ts',
  catalogFile: 'catalog.json',
  manifestFile: 'manifest.json',
  /** The local files the build read (config-relative), so a deleted or renamed one makes it stale. */
  inputsFile: 'inputs.json',
  /** The bundled npm packages programs may import (`sandbox.modules`), with their list `modules/modules.json`. */
  sandboxModulesDir: 'modules',
  sandboxModulesFile: 'modules/modules.json',
  moduleFiles: {
    declarations: 'index.d.ts',
    proxy: 'index.js',
    schema: 'schema.json',
    capability: 'capability.json',
  },
} as const;

/** The module specifier prefix the sandbox resolves to build output. */
export const CAPABILITY_PREFIX = '@capabilities/';

/**
 * The one global the runtime defines inside the isolate, used by the generated proxies:
 * `globalThis.__agentSpaces.call(capability, functionName, args, resultMode?) → Promise<unknown>`.
 * Each call becomes one `capability.call` request to the host.
 */
export const SANDBOX_HOST_GLOBAL = '__agentSpaces';

import { z } from 'zod';
import { sdkNameSchema, sdkSchema, type SdkConfig } from './sdk-schema.js';
import type { EngineChoice } from '../core/index.js';

const stringMap = z.record(z.string(), z.string());

/**
 * The fields of a rate limit (`RateLimit` in core): at most `requests` calls per `period` for one
 * capability; past it a call fails at once (`onLimit: 'fail'`, the default) or waits in line for its
 * slot (`'queue'`; runs take turns), at most `maxWaitMs`, with at most `maxQueue` calls of one run waiting.
 */
export const rateLimitShape = {
  requests: z.number().int().positive(),
  period: z.enum(['second', 'minute', 'hour', 'day']),
  onLimit: z.enum(['fail', 'queue']).optional(),
  maxWaitMs: z.number().int().positive().optional(),
  maxQueue: z.number().int().positive().optional(),
};

export const rateLimitSchema = z.strictObject(rateLimitShape);

/** Who may call a function: a program in the sandbox (`code`), a direct tool call (`direct`), or `both`. */
export const callersSchema = z.enum(['code', 'direct', 'both']);

/**
 * A source's callers: one setting for all of its tools, or one per tool (original tool name or
 * operation id; `'*'` for the rest). Tools it does not name follow the space's `callers`.
 */
export const sourceCallersSchema = z.union([callersSchema, z.record(z.string().min(1), callersSchema)]);

/** Options every MCP server entry may carry besides how to reach it. */
const serverCommon = {
  /** Module name override (default `mcp-<server>`). */
  module: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'must be kebab-case (a-z, 0-9, -)')
    .optional(),
  /** Per-call timeout in ms (progress notifications reset it, up to `maxTotalTimeoutMs`). */
  timeoutMs: z.number().int().positive().optional(),
  maxTotalTimeoutMs: z.number().int().positive().optional(),
  /** Connection (start + initialize) timeout in ms. */
  connectTimeoutMs: z.number().int().positive().optional(),
  /**
   * Which MCP protocol era to speak: `2025-11-25` (the `initialize` handshake and sessions; also
   * older 2025-era servers), `2026-07-28` (stateless, `server/discover`; nothing else is accepted) or
   * `auto` (ask with `server/discover`, fall back to the 2025 handshake). Default: `auto` for HTTP
   * servers, `2025-11-25` for stdio servers (probing a stdio server starts it once more and may wait
   * for its timeout).
   */
  protocol: z.enum(['auto', '2026-07-28', '2025-11-25']).optional(),
  /** Require approval for tools whose annotations say `destructiveHint: true`. */
  approveDestructive: z.boolean().optional(),
  /** Tools (original names) that always require approval. */
  requireApproval: z.array(z.string()).optional(),
  /**
   * Which tools change something besides answering: `true` all, `false` none, or the tools' original
   * names (the others have none). Absent: the tools' annotations say (`readOnlyHint`, `destructiveHint`).
   * Results of a tool with side effects never teach its result type; only a tool known to be read-only
   * may be sampled (`agent-spaces capabilities sample`).
   */
  sideEffects: z.union([z.boolean(), z.array(z.string())]).optional(),
  disabled: z.boolean().optional(),
  /** One rate limit for all of the server's tools together (its module), e.g. `{ requests: 10, period: 'second', onLimit: 'queue' }`. */
  rateLimit: rateLimitSchema.optional(),
  /** Who may call the server's tools: `'code' | 'direct' | 'both'`, or per tool `{ delete_issue: 'direct', '*': 'code' }`. */
  callers: sourceCallersSchema.optional(),
};

export const stdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
  cwd: z.string().optional(),
  ...serverCommon,
});

export const httpServerSchema = z.strictObject({
  /** `http` = Streamable HTTP (falls back to legacy SSE unless `sse` is asked for); `sse` = legacy SSE only. */
  type: z.enum(['http', 'streamable-http', 'sse']).optional(),
  url: z.string().url(),
  headers: stringMap.optional(),
  ...serverCommon,
});

export const mcpServerSchema = z.union([stdioServerSchema, httpServerSchema]);

/**
 * `auto` (default): the fastest engine that loads here; or an engine's name. The engines are the
 * runtime's, which config does not import: any string passes here, and the space checks it when it
 * opens (naming `sandbox.engine` and the choices). The type still offers every registered name.
 */
const engineChoice: z.ZodType<string, EngineChoice | (string & {})> = z.string();

export const sandboxSchema = z.strictObject({
  /**
   * `worker`: isolates in pooled sandbox worker processes (default). `thread`: in pooled sandbox threads of
   * the host's process (no process hop). `in-process`: fastest, trusted code only.
   */
  isolation: z.enum(['worker', 'thread', 'in-process']).optional(),
  engine: engineChoice.optional(),
  timeoutMs: z.number().int().positive().optional(),
  memoryLimitMb: z.number().int().min(8).optional(),
  maxOutputBytes: z.number().int().positive().optional(),
  /** Largest JSON of one call's arguments, in bytes. */
  maxArgumentBytes: z.number().int().positive().optional(),
  maxCalls: z.number().int().positive().optional(),
  maxConcurrentCalls: z.number().int().positive().optional(),
  workers: z.number().int().positive().optional(),
  /** Programs one sandbox worker process runs at once (default 8). */
  runsPerWorker: z.number().int().positive().optional(),
  /**
   * npm packages (pure JavaScript, installed beside the config) that programs may import by their own
   * names: `['date-fns', 'zod', 'lodash-es/chunk']`. Bundled by the build; see docs/MODULES.md.
   */
  modules: z.array(z.string().min(1)).optional(),
  /** Largest bundle of one sandbox module, in bytes (default 2 MiB). */
  maxModuleBytes: z.number().int().positive().optional(),
});

export const stdSchema = z.strictObject({
  fs: z
    .strictObject({
      /** The workspace folder, relative to the config file (default `workspace`). */
      root: z.string().optional(),
      /** Bytes one run may write with fs.writeFile and fs.appendFile, in all (default 64 MiB). */
      maxWriteBytesPerRun: z.number().int().min(0).optional(),
    })
    .optional(),
  http: z.strictObject({ allowHosts: z.array(z.string()) }).optional(),
});

export const modelSchema = z.strictObject({
  baseURL: z.string().url().optional(),
  model: z.string().optional(),
  apiKey: z.string().optional(),
  /** Prices in US dollars per million tokens, by model id (overrides the built-in table). */
  prices: z.record(z.string(), z.strictObject({ input: z.number(), cachedInput: z.number().optional(), output: z.number() })).optional(),
});

/** Which operations of an OpenAPI service become functions: by tag, or by operation (operationId, function name or `GET /path`). */
export const openApiFilterSchema = z.strictObject({
  tags: z.array(z.string()).optional(),
  operations: z.array(z.string()).optional(),
});

/**
 * One OpenAPI service (`openapi.<api>`): every operation of its spec becomes a typed function of
 * `@capabilities/openapi-<api>`. Header values are secrets: sent to the service's own origin only,
 * and cut out of every message and the build output.
 */
export const openApiSchema = z.strictObject({
  /** The spec (OpenAPI 3.0 or 3.1, JSON or YAML): a path relative to the config file, or an https URL. */
  spec: z.string().min(1),
  /** Where calls go (default: the spec's first `servers` entry). */
  baseUrl: z.string().url().optional(),
  /** Headers sent with every call, e.g. `{ Authorization: 'Bearer ${GITHUB_TOKEN}' }`. */
  headers: stringMap.optional(),
  include: openApiFilterSchema.optional(),
  exclude: openApiFilterSchema.optional(),
  /** `'non-get'`: every operation but GET and HEAD; `true`: all; a list: those operations. */
  requireApproval: z.union([z.literal('non-get'), z.boolean(), z.array(z.string())]).optional(),
  /** One rate limit for all of the service's operations together. */
  rateLimit: rateLimitSchema.optional(),
  /** Who may call the service's operations: `'code' | 'direct' | 'both'`, or per operation id (`'*'` for the rest). */
  callers: sourceCallersSchema.optional(),
  /** Module name override (default `openapi-<api>`). */
  module: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'must be kebab-case (a-z, 0-9, -)')
    .optional(),
  /** Time for one call, redirects and body included (default 30,000 ms). */
  timeoutMs: z.number().int().positive().optional(),
  /** Largest response body read, in bytes (default 1 MiB). */
  maxResponseBytes: z.number().int().positive().optional(),
  /** Other hosts a redirect may lead to (host allow-list syntax: `cdn.example.com`, `*.example.com`); the headers are never sent there. */
  redirectHosts: z.array(z.string()).optional(),
  disabled: z.boolean().optional(),
});

/** A duration as the config and the CLI write it: `500ms`, `30s`, `15m`, `12h`, `7d` (see store/duration.ts). */
const DURATION = /^\d+(ms|s|m|h|d)$/;

/** How durable runs behave (with a `store`). */
export const durableSchema = z.strictObject({
  /** Time a durable run's approval may wait before it is denied, in ms (default: no deadline). */
  approvalDeadlineMs: z.number().int().positive().optional(),
  /** Functions safe to perform again when a worker died during the call (`module.function`, `module.*`), besides those annotated idempotentHint. */
  idempotent: z.array(z.string()).optional(),
  /**
   * Finished runs' rows (events, call journal, decided approvals, model replies, DBOS's workflow rows)
   * are deleted once they ended longer than `olderThan` ago (`30m`, `12h`, `7d`); workers do it every
   * `interval` (default `1h`), one at a time. Absent: nothing is deleted (`agent-spaces store prune` still can).
   */
  retention: z
    .strictObject({
      olderThan: z.string().regex(DURATION, 'a duration: a whole number and ms, s, m, h or d (7d)'),
      interval: z.string().regex(DURATION, 'a duration: a whole number and ms, s, m, h or d (1h)').optional(),
    })
    .optional(),
});

export const configSchema = z.strictObject({
  /** Capability files and globs (JSON tool files, `defineTool` modules), relative to the config file. */
  capabilities: z.array(z.string()).optional(),
  mcpServers: z
    .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'server names use letters, digits, _ . -'), mcpServerSchema)
    .optional(),
  /** OpenAPI services by name: `{ github: { spec: './github.yaml', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } } }`. */
  openapi: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'API names use letters, digits, _ . -'), openApiSchema).optional(),
  /** TypeScript SDKs by name: `{ company: { module: './sdk/company' } }` → `@capabilities/company` (docs/SDK.md). */
  sdks: z.record(sdkNameSchema, sdkSchema).optional(),
  /** Build output folder, relative to the config file. */
  outDir: z.string().optional(),
  sandbox: sandboxSchema.optional(),
  std: stdSchema.optional(),
  model: modelSchema.optional(),
  /**
   * Agent directories (Tools mode → `@capabilities/agent-<name>`) and remote A2A agent URLs
   * (→ `@capabilities/agent-<card name>` with `sendMessage`); all of them also in `@capabilities/agents`.
   */
  agents: z.array(z.string().min(1)).optional(),
  /** Where orchestration sessions are stored (default `<outDir>/sessions`), relative to the config file. */
  agentSessions: z.string().optional(),
  /**
   * A store for durable runs: `'postgres://user:password@host:5432/db'` (or `$AGENT_SPACES_STORE`).
   * Absent: everything in one process's memory, as always. See docs/DEPLOY.md.
   */
  store: z.string().min(1).optional(),
  durable: durableSchema.optional(),
  /** State between runs (`@capabilities/session`), per scope: bytes of keys and values, keys, and how long a key lives after its last set. */
  session: z
    .strictObject({
      maxBytes: z.number().int().positive().optional(),
      maxKeys: z.number().int().positive().optional(),
      ttlSeconds: z.number().int().positive().optional(),
    })
    .optional(),
  /**
   * Who may call functions by default: `code` (programs in the sandbox), `direct` (direct tool calls) or
   * `both` (default). A function's own `callers`, or its server's, wins. The bridge refuses the others.
   */
  callers: callersSchema.optional(),
  /**
   * Traces (OpenTelemetry): spans of tasks, model steps, code runs and capability calls, exported over
   * OTLP/HTTP to `otlp.endpoint` (e.g. `http://localhost:4318`; `/v1/traces` is added) with `otlp.headers`
   * (secrets: `${VAR}`s). Absent: the standard `OTEL_EXPORTER_OTLP_*` variables, else no tracing (the
   * SDK is then never loaded). Spans never carry arguments, results or secrets.
   */
  telemetry: z
    .strictObject({
      otlp: z.strictObject({ endpoint: z.string().url(), headers: stringMap.optional() }).optional(),
      serviceName: z.string().min(1).optional(),
    })
    .optional(),
});

export type AgentSpacesConfigInput = z.input<typeof configSchema>;
export type StdioServerConfig = z.output<typeof stdioServerSchema>;
export type HttpServerConfig = z.output<typeof httpServerSchema>;
export type McpServerConfig = z.output<typeof mcpServerSchema>;
export type OpenApiConfig = z.output<typeof openApiSchema>;
export type SandboxConfig = z.output<typeof sandboxSchema>;
export type StdConfig = z.output<typeof stdSchema>;
export type ModelConfig = z.output<typeof modelSchema>;
export type DurableConfig = z.output<typeof durableSchema>;

/** A loaded, validated configuration with paths made absolute. */
export interface ResolvedConfig {
  /** The folder relative paths are resolved against (the config file's folder). */
  root: string;
  /** The config file, when one was loaded. */
  file?: string;
  capabilities: string[];
  mcpServers: Record<string, McpServerConfig>;
  /** OpenAPI services (enabled ones), `${VAR}`s expanded; a local `spec` is an absolute path. */
  openapi?: Record<string, OpenApiConfig>;
  /** TypeScript SDKs (enabled ones), `${VAR}`s expanded; paths as written (relative to `root`). */
  sdks?: Record<string, SdkConfig>;
  outDir: string;
  sandbox: SandboxConfig;
  std: StdConfig;
  model: ModelConfig;
  /** Agent directories (absolute) and A2A URLs, as listed. */
  agents: string[];
  agentSessions: string;
  /** The durable runs' store (`${VAR}`s expanded), when configured. */
  store?: string;
  durable?: DurableConfig;
  /** Limits of session state (`configSchema.session`). */
  session?: { maxBytes?: number; maxKeys?: number; ttlSeconds?: number };
  /** The space's default callers (`configSchema.callers`). */
  callers?: z.output<typeof callersSchema>;
  /** Tracing (`configSchema.telemetry`), `${VAR}`s expanded. */
  telemetry?: { otlp?: { endpoint: string; headers?: Record<string, string> }; serviceName?: string };
}

export function isStdioServer(server: McpServerConfig): server is StdioServerConfig {
  return 'command' in server;
}

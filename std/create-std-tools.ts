import type { ToolDefinition } from '../core/index.js';
import { createCryptoTool } from './crypto-tool.js';
import { createCsvTool } from './csv-tool.js';
import { createFsTool } from './fs-tool.js';
import { createHttpTool } from './http-tool.js';
import { createJsonTool } from './json-tool.js';
import { DEFAULT_STD_LIMITS, type StdLimits } from './std-limits.js';
import { createTimeTool } from './time-tool.js';

export interface StdToolsOptions {
  /** Workspace folder for `fs`; nothing outside it is reachable. */
  root: string;
  /** Hosts `http` may reach (config `std.http.allowHosts`). Omitted: none. */
  http?: { allowHosts: string[] };
  fetch?: typeof fetch;
  /** Clock for `time.now`, in epoch ms. */
  now?: () => number;
  /**
   * Host budgets (see docs/security/std.md). `maxWriteBytesPerRun` is config
   * `std.fs.maxWriteBytesPerRun`; keep `maxResultBytes` at or below the bridge's result cap.
   */
  limits?: Partial<StdLimits>;
}

/**
 * The standard library as tool definitions: `fs`, `http`, `json`, `csv`, `crypto`, `time` — one tool
 * each. The compiler turns them into `@capabilities/std-<name>` (and `@capabilities/std`); the bridge
 * runs them through an in-process backend, under the same validation, policy and events as any tool.
 */
export function createStdTools(options: StdToolsOptions): ToolDefinition[] {
  const limits: StdLimits = { ...DEFAULT_STD_LIMITS, ...options.limits };
  return [
    createFsTool({ root: options.root, maxWriteBytesPerRun: limits.maxWriteBytesPerRun, maxResultBytes: limits.maxResultBytes }),
    createHttpTool({
      allowHosts: options.http?.allowHosts ?? [],
      maxResultBytes: limits.maxResultBytes,
      maxInputChars: limits.maxInputChars,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    }),
    createJsonTool(limits),
    createCsvTool(limits),
    createCryptoTool(limits),
    createTimeTool(options.now === undefined ? {} : { now: options.now }),
  ];
}

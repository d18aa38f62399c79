import type { ResolvedConfig } from '../config/index.js';
import type { ToolDefinition } from '../core/index.js';
import type { CapabilitySourceKind } from './capability-source.js';
import { createFilesSource, expandGlobs, filesSource } from './files/index.js';
import { mcpSource } from './mcp/index.js';
import { openApiSpecFiles, openapiSource } from './openapi/index.js';
import { createStdSource } from './std/index.js';
import { collectSecrets } from './secrets-of-config.js';
import type { Secret } from '../core/index.js';

export type { CapabilitySourceKind, ConnectContext, DiscoverContext, Discovery, SourceKindName } from './capability-source.js';
export { kindsOf, sourceOfKind } from './capability-source.js';
export { createFilesSource, expandGlobs, filesSource } from './files/index.js';
export type { FilesSourceOptions } from './files/index.js';
export { createStdSource, stdWorkspace } from './std/index.js';
export type { StdSourceOptions } from './std/index.js';
export { discoverHostTools } from './host-tools.js';
export { createMcpSource, mcpModuleName, mcpSource } from './mcp/index.js';
export type { McpSourceOptions } from './mcp/index.js';
export { openapiSource } from './openapi/index.js';
export { secretsOfMcpServer } from './mcp/server-secrets.js';
export { secretsOfApi } from './openapi/api-secrets.js';
export { collectSecrets, secretsOfModel } from './secrets-of-config.js';
export type { HostTool } from './host-tools.js';

export interface DefaultSourcesOptions {
  /** Host tools compiled into the standard library (the space's `task-storage`), by module. */
  stdExtraTools?: Record<string, ToolDefinition>;
  /**
   * Fail a JSON tool without an `implementation` (default true: nothing could perform its calls).
   * `false` for a caller of the compiler alone, who may bring backends for any module.
   */
  requireImplementations?: boolean;
}

/**
 * The capability sources a config names: its tool files (`capabilities`), its MCP servers
 * (`mcpServers`), its OpenAPI services (`openapi`) and the standard library (`std`). Adding a kind of
 * source is one folder under `sources/` and one line here.
 */
export function defaultSources(config: ResolvedConfig, options: DefaultSourcesOptions = {}): CapabilitySourceKind[] {
  return [
    options.requireImplementations === false ? createFilesSource({ requireImplementations: false }) : filesSource,
    mcpSource,
    openapiSource,
    createStdSource(config, options.stdExtraTools ? { extraTools: options.stdExtraTools } : {}),
  ];
}

/**
 * Every secret of a space with this config: what each source declares (`CapabilitySourceKind.secrets`;
 * `sources` default to {@link defaultSources}), the model's key and the store URL's credentials.
 */
export function secretsOfConfig(
  config: ResolvedConfig,
  options: { sources?: readonly CapabilitySourceKind[]; env?: Record<string, string | undefined> } = {},
): Secret[] {
  return collectSecrets(config, options.sources ?? defaultSources(config), options.env);
}

/**
 * The local files the config's sources read, whose change makes a build stale: the tool files its
 * `capabilities` globs match and the OpenAPI specs that are files (MCP servers are checked at call time).
 */
export async function sourceInputFiles(config: ResolvedConfig): Promise<string[]> {
  const { files } = await expandGlobs(config.capabilities, config.root);
  return [...files, ...openApiSpecFiles(config.openapi)];
}

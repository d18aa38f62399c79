import type { ResolvedConfig } from '../config/index.js';
import type { Secret } from '../core/index.js';
import type { CapabilitySource } from './capability-source.js';
import { createFilesSource, filesSource } from './files/index.js';
import { createMcpSource } from './mcp/index.js';
import { createOpenApiSource } from './openapi/index.js';
import { createSdkSource } from './sdk/index.js';
import { collectSecrets } from './secrets-of-config.js';

export type {
  CapabilitySource,
  CapabilitySourceKind,
  ConnectContext,
  DiscoverContext,
  Discovery,
  SourceKindName,
} from './capability-source.js';
// Re-exported for the users of sources (they live in core/ for the compiler and space/).
export { kindsOf, sourceOfKind } from '../core/index.js';
export { createFilesSource, expandGlobs, filesSource } from './files/index.js';
export type { FilesSourceOptions } from './files/index.js';
export { discoverHostTools, hostToolsBackend } from './host-tools.js';
export { connectMcpServer, createMcpSource, mcpModuleName, mcpSource } from './mcp/index.js';
export type { McpConnection, McpSourceOptions } from './mcp/index.js';
export { createOpenApiSource, openapiSource } from './openapi/index.js';
export { createSdkSource, schemaOfMembers, schemaOfType, secretsOfSdk } from './sdk/index.js';
export type { TypeSchema, TypeSchemaOptions } from './sdk/index.js';
export { secretsOfMcpServer } from './mcp/server-secrets.js';
export { secretsOfApi } from './openapi/api-secrets.js';
export { collectSecrets, secretsOfModel } from './secrets-of-config.js';
export type { HostTool } from './host-tools.js';

export interface ConfiguredSourcesOptions {
  /**
   * Fail a JSON tool without an `implementation` (default true: nothing could perform its calls).
   * `false` for a caller of the compiler alone, who may bring backends for any module.
   */
  requireImplementations?: boolean;
}

/**
 * The kinds of capability source this folder holds, each reading its section of the config: tool
 * files (`capabilities`), MCP servers (`mcpServers`), OpenAPI services (`openapi`), TypeScript SDKs (`sdks`). Adding a kind is
 * one folder under `sources/` and one line here; the space adds the standard library (whose source
 * lives in `space/`, beside the `std/` tools it wraps) and `openSpace` the agents.
 */
export function configuredSources(options: ConfiguredSourcesOptions = {}): CapabilitySource[] {
  return [
    options.requireImplementations === false ? createFilesSource({ requireImplementations: false }) : filesSource,
    createMcpSource(),
    createOpenApiSource(),
    createSdkSource(),
  ];
}

/**
 * Every secret of a space with this config: what each source declares (`CapabilitySource.secrets`;
 * `sources` default to {@link configuredSources}), the model's key and the store URL's credentials.
 */
export function secretsOfConfig(
  config: ResolvedConfig,
  options: { sources?: readonly CapabilitySource[]; env?: Record<string, string | undefined> } = {},
): Secret[] {
  return collectSecrets(config, options.sources ?? configuredSources(), options.env);
}

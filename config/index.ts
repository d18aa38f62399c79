export { isRemoteAgent, resolveAgentEntry } from './agent-entries.js';
export { defineConfig } from './define-config.js';
export { expandEnvDeep, expandEnvString } from './expand-env.js';
export {
  CONFIG_FILES,
  DEFAULT_CAPABILITIES,
  DEFAULT_OUT_DIR,
  formatIssues,
  importTypeScript,
  loadConfig,
  readConfigFile,
  resolveConfig,
  unwrapDefault,
} from './load-config.js';
export type { LoadConfigOptions } from './load-config.js';
export { configSchema, isStdioServer, mcpServerSchema, modelSchema, openApiSchema, rateLimitSchema, rateLimitShape } from './schema.js';
export type {
  AgentSpacesConfigInput,
  HttpServerConfig,
  McpServerConfig,
  ModelConfig,
  OpenApiConfig,
  ResolvedConfig,
  SandboxConfig,
  StdConfig,
  StdioServerConfig,
} from './schema.js';
export {
  agentSpacesHome,
  defineRegistry,
  EMPTY_REGISTRY,
  findRegistryFile,
  loadRegistry,
  mergeRegistries,
  REGISTRY_FILES,
  registryNames,
  registrySchema,
  resolveRegistry,
  selectFromRegistry,
} from './registry.js';
export type { Registry, RegistryInput } from './registry.js';
export { hasSelections, kindOfSelection, REGISTRY_KINDS } from './registry-kinds.js';
export type { RegistryKind } from './registry-kinds.js';
export { sdkSchema } from './sdk-schema.js';
export type { SdkConfig } from './sdk-schema.js';

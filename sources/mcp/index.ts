export { createMcpBackend } from './mcp-backend.js';
export type { McpBackend, McpBackendOptions } from './mcp-backend.js';
export { connectMcpServer, listAllTools } from './connect.js';
export type { McpConnection } from './connect.js';
export { createMcpSource, mcpSource } from './mcp-source.js';
export type { McpSourceOptions } from './mcp-source.js';
export { mcpModuleName } from './discover.js';

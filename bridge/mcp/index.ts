export { createMcpBackend, mcpServersOf, DEFAULT_MCP_CALL_TIMEOUT_MS, DEFAULT_MCP_MAX_TOTAL_TIMEOUT_MS } from './mcp-backend.js';
export type { McpBackend, McpBackendConnectionInfo, McpBackendOptions, McpBackendServer } from './mcp-backend.js';
export type { McpConnector } from './server-slot.js';
export { mapToolResult, textOf } from './map-tool-result.js';
export type { McpFullResult } from './map-tool-result.js';
export { findSchemaDrift } from './schema-drift.js';
export { connectMcpServer, hashToolSchema, listAllTools, McpConnectError } from '../../config/mcp-connect.js';
export type { ConnectMcpServerOptions, McpConnection } from '../../config/mcp-connect.js';

export { createAgentSpacesMcpServer, createRunRouter, MAX_RESULT_CHARS } from './create-mcp-server.js';
export type { RunRouter } from './create-mcp-server.js';
export { SERVER_INFO, serveSpace } from './serve.js';
export type { RunningServer, ServeOptions } from './serve.js';
export { serveMcp } from './serve-mcp.js';
export type { ConnectableMcpServer, McpServeOptions, RunningMcpServer } from './serve-mcp.js';

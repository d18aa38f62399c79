export { createAgentSpacesMcpServer, createRunRouter, MAX_RESULT_CHARS } from './create-mcp-server.js';
export type { RunRouter } from './create-mcp-server.js';
export { SERVER_INFO, serveSpace } from './serve.js';
export type { RunningServer, ServeOptions } from './serve.js';
export { DEFAULT_HTTP_LIMITS, resolveHttpBind, serveMcp } from './serve-mcp.js';
export { checkHostAndOrigin, hasBearerToken, readJsonBody, sameSecret } from './http-guard.js';
export type { ConnectableMcpServer, McpHttpOptions, McpServeOptions, RunningMcpServer } from './serve-mcp.js';
export { ServeError } from './serve-error.js';
export type { ServeErrorCode } from './serve-error.js';

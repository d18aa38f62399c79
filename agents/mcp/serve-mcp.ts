// Agents are served with the same hardened MCP serving as spaces (server/serve-mcp.ts).
export { serveMcp } from '../../server/serve-mcp.js';
export type { McpServeOptions, RunningMcpServer } from '../../server/serve-mcp.js';

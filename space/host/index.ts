export { createHost } from './create-host.js';
export type { Host, HostOptions, HostSpaceInfo, HostSpaceOptions } from './create-host.js';
export { createSharedMcpConnections } from './shared-mcp-connections.js';
export type { SharedMcpConnections } from './shared-mcp-connections.js';

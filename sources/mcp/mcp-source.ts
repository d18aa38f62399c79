import { sourceLabel, type Backend, type CapabilitySpec } from '../../core/index.js';
import type { CapabilitySource, ConnectContext, DiscoverContext, Discovery } from '../capability-source.js';
import { discoverMcpServer } from './discover.js';
import { secretsOfMcpServer } from './server-secrets.js';
import { createMcpBackend, mcpServersOf } from './mcp-backend.js';
import type { McpConnector } from './server-slot.js';

declare module '../../core/manifest.js' {
  interface CapabilityOrigins {
    /** A server of the config (`mcpServers.<server>`). */
    mcp: { server: string };
  }
}

export interface McpSourceOptions {
  /** Opens a connection to a server, for discovery and calls (default: `connectMcpServer`); tests pass in-memory servers. */
  connect?: McpConnector;
  /** The host log of the client pool (servers' stderr when they fail), redacted. */
  log?: (entry: string) => void;
}

/**
 * The MCP servers of the config (`mcpServers`) as a capability source: each server is one unit of
 * discovery (`mcp:<server>`, one module), and one client pool performs the calls of every server.
 */
export function createMcpSource(options: McpSourceOptions = {}): CapabilitySource {
  return {
    kind: 'mcp',
    async discover(context: DiscoverContext): Promise<Discovery> {
      const servers = Object.entries(context.config.mcpServers).sort(([a], [b]) => a.localeCompare(b));
      const loaded = await Promise.all(
        servers.map(([server, config]) =>
          context.load(`mcp:${server}`, async () => [
            await discoverMcpServer(server, config, {
              ...(options.connect === undefined ? {} : { connect: options.connect }),
              ...(context.signal === undefined ? {} : { signal: context.signal }),
            }),
          ]),
        ),
      );
      return { capabilities: loaded.flatMap((capabilities) => capabilities ?? []), failures: [] };
    },
    connect(specs: readonly CapabilitySpec[], context: ConnectContext): Promise<Backend> {
      return Promise.resolve(
        createMcpBackend({
          servers: mcpServersOf(specs, context.config.mcpServers),
          ...(options.connect === undefined ? {} : { connect: options.connect }),
          ...(options.log === undefined ? {} : { log: options.log }),
        }),
      );
    },
    // `mcp:<server>`, the label its units are loaded under, so a failed server keeps its previous module.
    describe: sourceLabel,
    title: (origin) => (origin.kind === 'mcp' ? `MCP server "${origin.server}"` : sourceLabel(origin)),
    schemaNames: { input: 'inputSchema', output: 'outputSchema' },
    secrets: (config) => Object.values(config.mcpServers).flatMap(secretsOfMcpServer),
    callers: (origin, config) => (origin.kind === 'mcp' ? config.mcpServers[origin.server]?.callers : undefined),
  };
}

/**
 * The MCP source with the real client (stdio, Streamable HTTP, legacy SSE).
 * @deprecated use `createMcpSource()`.
 */
export const mcpSource: CapabilitySource = createMcpSource();

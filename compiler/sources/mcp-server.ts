import { connectMcpServer, listAllTools, type McpConnection } from '../../config/mcp-connect.js';
import { toModuleName } from '../names.js';
import { CompileError, errorMessage, isJsonSchemaObject, type JsonSchema, type ToolAnnotations } from '../../core/index.js';
import type { McpServerConfig } from '../../config/index.js';
import type { RawCapability, RawFunction } from '../raw-capability.js';

/** Default module name of a server: `mcp-<server>` in kebab-case. */
export function mcpModuleName(server: string, config: McpServerConfig): string {
  return config.module ?? `mcp-${toModuleName(server)}`;
}

/**
 * Connects to a configured MCP server, pages through `tools/list` and returns its tools as one raw
 * capability. A malformed tool list fails this server only (the caller reports it).
 */
export type McpConnector = (server: string, config: McpServerConfig) => Promise<McpConnection>;

export async function discoverMcpServer(server: string, config: McpServerConfig, options: { timeoutMs?: number; connect?: McpConnector } = {}): Promise<RawCapability> {
  const connection = options.connect
    ? await options.connect(server, config)
    : await connectMcpServer(server, config, { timeoutMs: options.timeoutMs ?? config.connectTimeoutMs ?? 30_000 });
  try {
    const tools = await listAllTools(connection.client);
    const approve = new Set(config.requireApproval ?? []);
    const functions: RawFunction[] = [];
    const problems: string[] = [];
    for (const [index, tool] of tools.entries()) {
      const inputSchema = tool.inputSchema as unknown;
      if (!isJsonSchemaObject(inputSchema) || inputSchema.type !== 'object') {
        problems.push(`tool ${index} "${tool.name}": inputSchema must be an object schema with type "object" (got ${JSON.stringify(inputSchema)?.slice(0, 80)})`);
        continue;
      }
      const outputSchema = tool.outputSchema as unknown;
      if (outputSchema !== undefined && !isJsonSchemaObject(outputSchema)) {
        problems.push(`tool ${index} "${tool.name}": outputSchema must be an object schema`);
        continue;
      }
      const annotations = tool.annotations as ToolAnnotations | undefined;
      const destructive = annotations?.destructiveHint === true && config.approveDestructive === true;
      functions.push({
        toolName: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: inputSchema as JsonSchema,
        ...(outputSchema !== undefined ? { outputSchema: outputSchema as JsonSchema } : {}),
        resultKind: outputSchema !== undefined ? 'mcp-structured' : 'mcp-text',
        ...(approve.has(tool.name) || destructive ? { requiresApproval: true } : {}),
        ...(annotations ? { annotations } : {}),
      });
    }
    if (problems.length > 0) {
      throw new CompileError('MALFORMED_TOOL_LIST', `MCP server "${server}" returned a malformed tool list:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    }
    const info = connection.client.getServerVersion();
    return {
      name: server,
      module: mcpModuleName(server, config),
      ...(info?.title || info?.name ? { description: `MCP server ${info.title ?? info.name}` } : {}),
      ...(info?.version ? { version: info.version } : {}),
      source: { kind: 'mcp', server },
      config: {},
      functions,
    };
  } catch (error) {
    if (error instanceof CompileError) throw error;
    throw new CompileError('MCP_DISCOVERY_FAILED', `MCP server "${server}": listing tools failed: ${errorMessage(error)}`, { cause: error });
  } finally {
    await connection.close().catch(() => undefined);
  }
}

import { connectMcpServer, isRequestTimeout, listAllToolsUnchecked } from './connect.js';
import type { McpConnector } from './server-slot.js';
import { toolEffects } from './tool-effects.js';
import {
  CompileError,
  errorMessage,
  isJsonSchemaObject,
  toModuleName,
  type JsonSchema,
  type RawCapability,
  type RawFunction,
  type ToolAnnotations,
} from '../../core/index.js';
import type { McpServerConfig } from '../../config/index.js';
import { secretsOfMcpServer } from './server-secrets.js';
import { withoutSecrets } from '../map-strings.js';

/** How long starting a server, and then each page of its `tools/list`, may take at build time, unless configured. */
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 30_000;

/** Default module name of a server: `mcp-<server>` in kebab-case. */
export function mcpModuleName(server: string, config: McpServerConfig): string {
  return config.module ?? `mcp-${toModuleName(server)}`;
}

/**
 * Connects to a configured MCP server, pages through `tools/list` and returns its tools as one raw
 * capability. A malformed tool list fails this server only (the caller reports it).
 */
export async function discoverMcpServer(
  server: string,
  config: McpServerConfig,
  options: { timeoutMs?: number; connect?: McpConnector; signal?: AbortSignal } = {},
): Promise<RawCapability> {
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const connection = options.connect
    ? await options.connect(server, config)
    : await connectMcpServer(server, config, {
        timeoutMs: options.timeoutMs ?? config.connectTimeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS,
        ...signal,
      });
  const listTimeoutMs = config.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  // A server may quote its own credentials (env, args, headers) in descriptions, schemas or errors:
  // they would end up in the declarations, the catalog, search results and the terminal.
  const secrets = secretsOfMcpServer(config);
  const clean = <T>(value: T): T => withoutSecrets(value, secrets);
  try {
    let tools: unknown[];
    try {
      tools = await listAllToolsUnchecked(connection.client, { timeout: listTimeoutMs, ...signal });
    } catch (error) {
      if (!isRequestTimeout(error)) throw error;
      throw new CompileError(
        'MCP_DISCOVERY_TIMEOUT',
        `MCP server "${server}": no answer to tools/list within ${listTimeoutMs} ms; check the server, or raise timeoutMs for it`,
        { cause: error },
      );
    }
    const approve = new Set(config.requireApproval ?? []);
    const functions: RawFunction[] = [];
    const problems: string[] = [];
    for (const [index, tool] of tools.entries()) {
      const problem = toolProblem(tool);
      if (problem !== undefined || !isJsonSchemaObject(tool)) {
        const name = isJsonSchemaObject(tool) && typeof tool.name === 'string' ? ` "${tool.name}"` : '';
        problems.push(`tool ${index}${name}: ${problem}`);
        continue;
      }
      const { name } = tool as { name: string };
      const { description, inputSchema, outputSchema } = clean(tool) as {
        description?: unknown;
        inputSchema: JsonSchema;
        outputSchema?: JsonSchema;
      };
      const annotations = isJsonSchemaObject(tool.annotations) ? clean(tool.annotations as ToolAnnotations) : undefined;
      const destructive = annotations?.destructiveHint === true && config.approveDestructive === true;
      // Whether results may teach a text tool its type (compiler/inferred-results.ts, the bridge's recorder).
      const effects = outputSchema === undefined ? toolEffects(config, name, annotations) : undefined;
      functions.push({
        toolName: name,
        ...(typeof description === 'string' && description !== '' ? { description } : {}),
        inputSchema,
        ...(outputSchema !== undefined ? { outputSchema } : {}),
        resultKind: outputSchema !== undefined ? 'mcp-structured' : 'mcp-text',
        ...(approve.has(name) || destructive ? { requiresApproval: true } : {}),
        ...(annotations ? { annotations } : {}),
        ...(effects ? { effects } : {}),
      });
    }
    if (problems.length > 0) {
      throw new CompileError(
        'MALFORMED_TOOL_LIST',
        clean(
          `MCP server "${server}" returned a malformed tool list (fix the server, or set disabled: true for it):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
        ),
      );
    }
    const info = connection.client.getServerVersion();
    return {
      name: server,
      module: mcpModuleName(server, config),
      ...(info?.title || info?.name ? { description: clean(`MCP server ${info.title ?? info.name}`) } : {}),
      ...(info?.version ? { version: info.version } : {}),
      source: { kind: 'mcp', server },
      // mcpServers.<name>.rateLimit covers every tool of the server: the bridge limits per module.
      config: config.rateLimit ? { rateLimit: config.rateLimit } : {},
      functions,
    };
  } catch (error) {
    if (error instanceof CompileError) throw error;
    throw new CompileError('MCP_DISCOVERY_FAILED', clean(`MCP server "${server}": listing tools failed: ${errorMessage(error)}`));
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** What is wrong with one entry of a `tools/list` result, if anything. */
function toolProblem(tool: unknown): string | undefined {
  if (!isJsonSchemaObject(tool)) return 'is not an object';
  if (typeof tool.name !== 'string' || tool.name === '') return 'has no name';
  const { inputSchema, outputSchema } = tool;
  if (!isJsonSchemaObject(inputSchema) || inputSchema.type !== 'object') {
    return `inputSchema must be an object schema with type "object" (got ${JSON.stringify(inputSchema)?.slice(0, 80) ?? 'nothing'})`;
  }
  if (outputSchema !== undefined && (!isJsonSchemaObject(outputSchema) || outputSchema.type !== 'object')) {
    return `outputSchema must be an object schema with type "object" (got ${JSON.stringify(outputSchema).slice(0, 80)})`;
  }
  return undefined;
}

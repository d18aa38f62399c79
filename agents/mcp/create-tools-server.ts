import type { CallToolResult, Server, Tool } from '@modelcontextprotocol/server';
import { createSchemaCompiler } from '../../bridge/index.js';
import { errorMessage, type JsonSchema } from '../../core/index.js';

/** What a tool handler gets besides its arguments. */
export interface ToolCallExtra {
  signal: AbortSignal;
  /** Sends a progress notification when the client asked for progress (a no-op otherwise). */
  progress(progress: number, message?: string): void;
}

/** One tool of a served MCP server, with a JSON Schema input (as agent tools are written). */
export interface ServedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: Tool['annotations'];
  handler(args: Record<string, unknown>, extra: ToolCallExtra): Promise<CallToolResult>;
}

/**
 * A low-level MCP server offering `tools` (validated against their input schemas with ajv). A handler
 * that throws becomes an `isError` result with its message; progress is sent before the result (on the
 * request's own stream for 2026-07-28 clients). One definition serves both protocol eras.
 */
export async function createToolsServer(
  info: { name: string; version: string; instructions?: string },
  tools: ServedTool[],
): Promise<Server> {
  // The MCP SDK loads when a server is made, not with the package.
  const { Server } = await import('@modelcontextprotocol/server');
  const server = new Server(
    { name: info.name, version: info.version },
    { capabilities: { tools: {} }, ...(info.instructions ? { instructions: info.instructions } : {}) },
  );
  const compile = createSchemaCompiler();
  const byName = new Map(tools.map((tool) => [tool.name, { tool, check: compile(tool.inputSchema) }]));

  server.setRequestHandler('tools/list', () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      ...(tool.title ? { title: tool.title } : {}),
      description: tool.description,
      inputSchema: tool.inputSchema as Tool['inputSchema'],
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool['outputSchema'] } : {}),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    })),
  }));

  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
    const entry = byName.get(request.params.name);
    if (!entry) return errorResult(`unknown tool "${request.params.name}"; tools: ${tools.map((t) => t.name).join(', ')}`);
    const args = request.params.arguments ?? {};
    const issues = entry.check(args);
    if (issues.length > 0) {
      return errorResult(
        `invalid arguments for "${entry.tool.name}": ${issues.map((issue) => `${issue.path || '(arguments)'} ${issue.message}`).join('; ')}`,
      );
    }
    const token = request.params._meta?.progressToken;
    const sent: Promise<unknown>[] = [];
    try {
      const result = await entry.tool.handler(args, {
        signal: ctx.mcpReq.signal,
        progress(progress, message) {
          if (token === undefined) return;
          sent.push(
            ctx.mcpReq
              .notify({ method: 'notifications/progress', params: { progressToken: token, progress, ...(message ? { message } : {}) } })
              .catch(() => undefined),
          );
        },
      });
      // Progress must reach the client before the result: the SDK drops progress after a response.
      await Promise.all(sent);
      return result;
    } catch (error) {
      await Promise.all(sent);
      return errorResult(errorMessage(error));
    }
  });
  return server;
}

export function errorResult(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

export function textResult(text: string, structuredContent?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structuredContent ? { structuredContent } : {}) };
}

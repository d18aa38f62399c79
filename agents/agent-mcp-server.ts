import type { Server } from '@modelcontextprotocol/server';
import { isJsonSchemaObject, type JsonSchema } from '../core/index.js';
import { createToolsServer, errorResult, textResult } from './mcp/create-tools-server.js';
import type { AgentRunner } from './run-agent.js';

/**
 * A Tools-mode agent as an MCP server: one tool per agent tool (same name, description and input
 * schema), `serverInfo` from `metadata.name`/`version`, `instructions` from the description. A call
 * runs a headless session; its answer is the text result, also parsed into `structuredContent` when
 * the tool declares an `outputSchema`. Tool names are not prefixed: the server is the agent.
 */
export function createAgentMcpServer(runner: AgentRunner): Promise<Server> {
  const { agent } = runner;
  return createToolsServer(
    { name: agent.name, version: agent.version, ...(agent.description ? { instructions: agent.description } : {}) },
    agent.tools.map((tool) => {
      const outputSchema = isJsonSchemaObject(tool.outputSchema) ? (tool.outputSchema as JsonSchema) : undefined;
      return {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.parameters as unknown as JsonSchema,
        ...(outputSchema ? { outputSchema } : {}),
        async handler(args, extra) {
          let events = 0;
          const answer = await runner.callTool(tool.name, args, {
            signal: extra.signal,
            onEvent: (event) => extra.progress(++events, event.type),
          });
          if (!outputSchema) return textResult(answer.text);
          const structured = parseObject(answer.text);
          if (!structured)
            return errorResult(
              `agent "${agent.name}" tool "${tool.name}" declares an output schema, but its answer is not a JSON object:\n${answer.text}`,
            );
          return textResult(answer.text, structured);
        },
      };
    }),
  );
}

function parseObject(text: string): Record<string, unknown> | undefined {
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text.trim());
  try {
    const value: unknown = JSON.parse(fenced?.[1] ?? text);
    return isJsonSchemaObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

import type { Server } from '@modelcontextprotocol/server';
import type { JsonSchema } from '../../core/index.js';
import { createToolsServer, textResult, type ServedTool } from '../mcp/create-tools-server.js';
import type { OrchestrationTools } from './orchestration-tools.js';

/** Input schemas of the orchestration tools: public interface (the seed's names and fields). */
export const ORCHESTRATION_SCHEMAS = {
  list_agents: { type: 'object', properties: {}, additionalProperties: false },
  execute_agent: {
    type: 'object',
    properties: {
      agent_name: { type: 'string', description: 'Name of the agent, as list_agents shows it' },
      prompt: { type: 'string', description: 'The request or instruction for the agent' },
      session_id: { type: 'string', description: 'Continue this session (its earlier messages are the context); omitted: a new session' },
    },
    required: ['agent_name', 'prompt'],
    additionalProperties: false,
  },
  get_agent_memory: {
    type: 'object',
    properties: { session_id: { type: 'string', description: 'The session id execute_agent returned' } },
    required: ['session_id'],
    additionalProperties: false,
  },
} satisfies Record<string, JsonSchema>;

export const ORCHESTRATION_DESCRIPTIONS = {
  list_agents: 'List the available agents with their descriptions and what they can do.',
  execute_agent: 'Send a prompt to an agent and get its answer. Pass session_id to continue a conversation.',
  get_agent_memory: 'The most recent messages (up to 50) of an agent session, as {role, content}.',
} as const;

/**
 * The orchestration tools as an MCP server. Results are the seed's JSON objects, as text and as
 * `structuredContent`; an `{status: "error"}` result is also marked `isError`.
 */
export function createOrchestrationMcpServer(tools: OrchestrationTools, info: { name: string; version: string }): Promise<Server> {
  const json = (value: { status: string }) => ({
    ...textResult(JSON.stringify(value, null, 2), value as Record<string, unknown>),
    ...(value.status === 'error' ? { isError: true } : {}),
  });
  const served: ServedTool[] = [
    {
      name: 'list_agents',
      description: ORCHESTRATION_DESCRIPTIONS.list_agents,
      inputSchema: ORCHESTRATION_SCHEMAS.list_agents,
      annotations: { readOnlyHint: true },
      handler: async () => json(await tools.listAgents()),
    },
    {
      name: 'execute_agent',
      description: ORCHESTRATION_DESCRIPTIONS.execute_agent,
      inputSchema: ORCHESTRATION_SCHEMAS.execute_agent,
      handler: async (args, extra) =>
        json(await tools.executeAgent(args as { agent_name: string; prompt: string; session_id?: string }, { signal: extra.signal })),
    },
    {
      name: 'get_agent_memory',
      description: ORCHESTRATION_DESCRIPTIONS.get_agent_memory,
      inputSchema: ORCHESTRATION_SCHEMAS.get_agent_memory,
      annotations: { readOnlyHint: true },
      handler: async (args) => json(await tools.getAgentMemory(args as { session_id: string })),
    },
  ];
  return createToolsServer(
    {
      ...info,
      instructions:
        'Delegate work to other agents: list_agents to see who is there, execute_agent to ask one (keep session_id to continue), get_agent_memory to read a session back.',
    },
    served,
  );
}

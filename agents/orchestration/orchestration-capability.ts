import { defineTool, type JsonSchema, type SchemaInput } from '../../core/index.js';
import type { HostTool } from '../../sources/index.js';
import { ORCHESTRATION_DESCRIPTIONS, ORCHESTRATION_SCHEMAS } from './orchestration-mcp-server.js';
import type { OrchestrationTools } from './orchestration-tools.js';

/** The module the orchestration tools compile to: `@capabilities/agents`. */
export const ORCHESTRATION_MODULE = 'agents';

const errorShape = {
  type: 'object',
  properties: { status: { const: 'error' }, message: { type: 'string' } },
  required: ['status', 'message'],
} satisfies JsonSchema;

const RETURNS = {
  list_agents: {
    type: 'object',
    properties: {
      status: { const: 'success' },
      agents: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            description: { type: 'string' },
            kind: { enum: ['local', 'a2a'] },
            location: { type: 'string' },
            mode: { type: 'string' },
            version: { type: 'string' },
            abilities: { type: 'array', items: { type: 'string' } },
          },
          required: ['name', 'description', 'kind', 'location', 'abilities'],
        },
      },
      count: { type: 'integer' },
      problems: { type: 'array', items: { type: 'string' } },
    },
    required: ['status', 'agents', 'count'],
  },
  execute_agent: {
    oneOf: [
      {
        type: 'object',
        properties: { status: { const: 'success' }, content: { type: 'string' }, session_id: { type: 'string' } },
        required: ['status', 'content', 'session_id'],
      },
      errorShape,
    ],
  },
  get_agent_memory: {
    oneOf: [
      {
        type: 'object',
        properties: {
          status: { const: 'success' },
          session_id: { type: 'string' },
          logs: {
            type: 'array',
            items: { type: 'object', properties: { role: { type: 'string' }, content: { type: 'string' } }, required: ['role', 'content'] },
          },
        },
        required: ['status', 'session_id', 'logs'],
      },
      errorShape,
    ],
  },
} satisfies Record<string, JsonSchema>;

/**
 * The orchestration tools as `@capabilities/agents` (`listAgents`, `executeAgent`, `getAgentMemory`),
 * a host tool of the agents' capability source: code can fan out to several agents with `Promise.all`.
 * `source` names where the agents come from (the orchestration config file).
 */
export function orchestrationHostTool(tools: OrchestrationTools, source: string): HostTool {
  return {
    module: ORCHESTRATION_MODULE,
    source: { kind: 'agent', path: source },
    definition: defineTool({
      name: ORCHESTRATION_MODULE,
      description: 'Other agents: list them, ask them, read their sessions back.',
      functions: {
        list_agents: {
          description: ORCHESTRATION_DESCRIPTIONS.list_agents,
          parameters: schema(ORCHESTRATION_SCHEMAS.list_agents),
          returns: schema(RETURNS.list_agents),
          handler: () => tools.listAgents(),
        },
        execute_agent: {
          description: ORCHESTRATION_DESCRIPTIONS.execute_agent,
          parameters: schema(ORCHESTRATION_SCHEMAS.execute_agent),
          returns: schema(RETURNS.execute_agent),
          handler: (args: never, context) =>
            tools.executeAgent(args as { agent_name: string; prompt: string; session_id?: string }, { signal: context.signal }),
        },
        get_agent_memory: {
          description: ORCHESTRATION_DESCRIPTIONS.get_agent_memory,
          parameters: schema(ORCHESTRATION_SCHEMAS.get_agent_memory),
          returns: schema(RETURNS.get_agent_memory),
          handler: (args: never) => tools.getAgentMemory(args as { session_id: string }),
        },
      },
    }),
  };
}

/** Our schemas are plain JSON Schema objects; `defineTool` types them only to type handlers, which cast here. */
function schema(value: JsonSchema): SchemaInput {
  return value as unknown as SchemaInput;
}

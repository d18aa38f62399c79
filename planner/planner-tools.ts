import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';

/** Names of the four functions the model is offered. */
export type PlannerToolName = 'search_tools' | 'call_tool' | 'run_code' | 'finish';

export const PLANNER_TOOL_NAMES: readonly PlannerToolName[] = ['search_tools', 'call_tool', 'run_code', 'finish'];

/**
 * The four function tools of the planner, a public interface: whatever the space holds, the model sees
 * only these, so the request's size stays the same for 10 tools or 10,000.
 */
export const PLANNER_TOOLS: readonly ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'search_tools',
      description: 'Find capability functions by words. Returns ids "<module>.<function>" and what detail_level asks for.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What you need, in words; empty lists the modules.' },
          detail_level: {
            type: 'string',
            enum: ['names', 'summary', 'full'],
            description: 'names: ids; summary (default): signature, one line; full: whole TypeScript declaration.',
          },
          limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Most results (default 10).' },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'call_tool',
      description: 'Call one capability function.',
      parameters: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Its id from search_tools.' },
          arguments: { type: 'object', description: "The function's parameters." },
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'run_code',
      description: 'Type-check and run a TypeScript program; its logs and "export default" value come back.',
      parameters: {
        type: 'object',
        properties: { code: { type: 'string', description: 'A complete TypeScript module.' } },
        required: ['code'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'finish',
      description: 'End the task.',
      parameters: {
        type: 'object',
        properties: {
          summary: { type: 'string', description: 'What was done and found.' },
          result: { description: 'Optional structured result.' },
        },
        required: ['summary'],
        additionalProperties: false,
      },
    },
  },
];

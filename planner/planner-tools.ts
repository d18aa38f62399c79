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
      description:
        'Search the capabilities of the space by words (names, descriptions, parameter names). Returns ids "<module>.<function>" with what the detail level asks for.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Words describing what you need; empty lists the modules.' },
          detail_level: {
            type: 'string',
            enum: ['names', 'summary', 'full'],
            description:
              'names: ids only; summary (default): signature and one line; full: whole description and the TypeScript declaration with every nested parameter and result type.',
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
      description: 'Call one capability function directly and get its result.',
      parameters: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The id "<module>.<function>" from search_tools, e.g. "crm.searchCustomers".' },
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
      description:
        'Type-check and run a TypeScript program in the sandbox. Import capabilities from "@capabilities/<module>"; console.log output and the "export default" value come back.',
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
      description: 'End the task with a summary for the user and, optionally, structured result data.',
      parameters: {
        type: 'object',
        properties: {
          summary: { type: 'string', description: 'What was done and found, in plain words.' },
          result: { description: 'Optional structured result.' },
        },
        required: ['summary'],
        additionalProperties: false,
      },
    },
  },
];

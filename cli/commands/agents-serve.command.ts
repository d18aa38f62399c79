import { defineCommand, pick } from '../command.js';

export const command = defineCommand({
  name: 'agents serve',
  synopsis: ['agent-spaces agents serve <config | dir... | url...> [--http <port>]'],
  description:
    'serve the orchestration tools over MCP: list_agents, execute_agent, get_agent_memory\n(with a store, sessions are kept in it, so replicas share them)',
  options: ['cwd', 'http', 'host', 'token', 'store'],
  stopsItself: true,
  async run({ args, cwd, values }) {
    return (await import('./agents.js')).agentsServeCommand({ cwd, inputs: args, ...pick(values, ['http', 'host', 'token', 'store']) });
  },
});

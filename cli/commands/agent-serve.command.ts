import { defineCommand, pick } from '../command.js';

export const command = defineCommand({
  name: 'agent serve',
  synopsis: ['agent-spaces agent serve <dir> [--http <port>]', 'agent-spaces agent serve <dir...> --a2a <port>'],
  description:
    'serve a Tools-mode agent directory as an MCP server (stdio by default), or agent directories as\nA2A servers (cards at /agents/<name>/)',
  options: ['cwd', 'http', 'a2a', 'host', 'token', 'store'],
  stopsItself: true,
  async run({ args, cwd, values }) {
    return (await import('./agent.js')).agentServeCommand({ cwd, dirs: args, ...pick(values, ['http', 'a2a', 'host', 'token', 'store']) });
  },
});

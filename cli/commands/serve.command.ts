import { defineCommand, pick } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'serve',
  synopsis: [
    'agent-spaces serve [--http <port>] [--host <addr>] [--token <t>] [--studio <address>] [--store <url>] [--mode <code|invoke|both>] [--save-programs]',
  ],
  description:
    'serve the space as an MCP server (stdio by default): tools search_tools, get_types, execute_code,\nor with --mode invoke search_tools and call_tool (no code)\n(with a store, execute_code runs go to its workers and sessions are kept in it, so replicas share them)',
  options: ['config', 'cwd', 'http', 'host', 'token', 'studio', 'isolation', 'engine', 'store', 'mode', 'save-programs'],
  stopsItself: true,
  async run({ args: [first], cwd, common, values }) {
    if (first) throw new UsageError(`unexpected argument "${first}" (serve takes options only)`);
    return (await import('./serve.js')).serveCommand({
      cwd,
      ...(common.config ? { config: common.config } : {}),
      ...pick(values, ['http', 'host', 'token', 'studio', 'isolation', 'engine', 'store', 'mode']),
      ...(values['save-programs'] === true ? { savePrograms: true } : {}),
    });
  },
});

import { defineCommand, pick } from '../command.js';
import type { OptionValues } from '../options.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'serve',
  synopsis: [
    'agent-spaces serve [--http <port>] [--host <addr>] [--token <t>] [--studio <address>] [--store <url>] [--mode <code|invoke|both>] [--save-programs]',
    'agent-spaces serve --http <port> --spaces <[name=]dir,...> [--host <addr>] [--token <t>] [--mode <code|invoke|both>] [--save-programs]',
  ],
  description:
    'serve the space as an MCP server (stdio by default): tools search_tools, get_types, execute_code,\nor with --mode invoke search_tools and call_tool (no code)\n(with a store, execute_code runs go to its workers and sessions are kept in it, so replicas share them);\nwith --spaces, several folders as spaces of one host (the user-level registry, one sandbox pool),\neach its own MCP server at /spaces/<name>/mcp (sessions, approvals, state and traces per space)',
  options: ['config', 'cwd', 'http', 'host', 'token', 'studio', 'isolation', 'engine', 'store', 'mode', 'save-programs', 'spaces'],
  stopsItself: true,
  async run({ args: [first], cwd, common, values }) {
    if (first) throw new UsageError(`unexpected argument "${first}" (serve takes options only)`);
    if (values.spaces !== undefined) return serveSpaces(cwd, common.config, values);
    return (await import('./serve.js')).serveCommand({
      cwd,
      ...(common.config ? { config: common.config } : {}),
      ...pick(values, ['http', 'host', 'token', 'studio', 'isolation', 'engine', 'store', 'mode']),
      ...(values['save-programs'] === true ? { savePrograms: true } : {}),
    });
  },
});

/** `serve --spaces`: HTTP only, and without the options of one space's serve. */
async function serveSpaces(cwd: string, config: string | undefined, values: OptionValues): Promise<number> {
  const port = values.http === undefined ? Number.NaN : Number(values.http);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError('--spaces serves over HTTP: pass --http <port> (0 = any free port)');
  const alone = [
    ['--config', config],
    ['--store', values.store],
    ['--studio', values.studio],
    ['--isolation', values.isolation],
  ].find(([, value]) => value !== undefined);
  if (alone) {
    const why = alone[0] === '--config' ? 'each folder of --spaces has its own config' : "it is an option of one space's serve";
    throw new UsageError(`${alone[0]} does not apply with --spaces: ${why}`);
  }
  return (await import('./serve-spaces.js')).serveSpacesCommand({
    cwd,
    spaces: values.spaces ?? '',
    http: port,
    ...pick(values, ['host', 'token', 'engine', 'mode']),
    ...(values['save-programs'] === true ? { savePrograms: true } : {}),
  });
}

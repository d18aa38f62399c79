import { openSpace } from '../../agents/index.js';
import { ServeError, serveSpace } from '../../server/index.js';
import { progress, UsageError } from '../output.js';

export interface ServeCommandOptions {
  cwd: string;
  config?: string;
  http?: string;
  host?: string;
  token?: string;
  isolation?: string;
}

/** `agent-spaces serve`: the space as an MCP server until interrupted (or, on stdio, until stdin closes). */
export async function serveCommand(options: ServeCommandOptions): Promise<number> {
  let port: number | undefined;
  if (options.http !== undefined) {
    port = Number(options.http);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--http takes a port number (got "${options.http}")`);
  }
  if (options.isolation !== undefined && options.isolation !== 'worker' && options.isolation !== 'in-process') {
    throw new UsageError(`--isolation takes "worker" or "in-process" (got "${options.isolation}")`);
  }
  const token = options.token ?? process.env.AGENT_SPACES_SERVE_TOKEN;
  const running = await serveSpace({
    openSpace,
    cwd: options.cwd,
    ...(options.config ? { configFile: options.config } : {}),
    ...(options.isolation ? { isolation: options.isolation as 'worker' | 'in-process' } : {}),
    ...(port !== undefined ? { http: { port, ...(options.host ? { host: options.host } : {}), ...(token ? { token } : {}) } } : {}),
    log: progress,
  }).catch((error: unknown) => {
    // Refusals of an unsafe setup are usage problems (exit 2): the message says which option to change.
    if (error instanceof ServeError && error.code !== 'SERVE_BIND_FAILED') throw new UsageError(error.message);
    throw error;
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    if (port === undefined) process.stdin.once('close', resolve);
  });
  await running.close();
  return 0;
}

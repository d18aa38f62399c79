import path from 'node:path';
import { serveAgent, serveAgentDirsA2A } from '../../agents/index.js';
import { openA2ATaskStores, resolveStoreUrl } from '../../store/index.js';
import { progress, UsageError } from '../output.js';
import { waitForShutdown } from '../wait-for-shutdown.js';

export interface AgentServeCommandOptions {
  cwd: string;
  dirs: string[];
  http?: string;
  a2a?: string;
  host?: string;
  token?: string;
  /** With --a2a: keep the agents' tasks in this store (default $AGENT_SPACES_STORE; none: in memory). */
  store?: string;
}

/**
 * `agent-spaces agent serve <dir...>`: a Tools-mode agent as an MCP server (stdio, or `--http <port>`),
 * or with `--a2a <port>` one or more agents as A2A servers. Runs until interrupted (stdio: until stdin closes).
 */
export async function agentServeCommand(options: AgentServeCommandOptions): Promise<number> {
  if (options.dirs.length === 0)
    throw new UsageError('agent serve needs an agent directory: agent-spaces agent serve <dir> [--http <port> | --a2a <port>]');
  if (options.http !== undefined && options.a2a !== undefined) throw new UsageError('choose one of --http (MCP) and --a2a (A2A)');
  const host = options.host ? { host: options.host } : {};
  const token = options.token ?? process.env.AGENT_SPACES_SERVE_TOKEN;
  let stop: () => Promise<void>;
  let stdio = false;
  if (options.store !== undefined && options.a2a === undefined)
    throw new UsageError('--store applies to A2A serving (--a2a <port>): an MCP agent server keeps no tasks');
  if (options.a2a !== undefined) {
    // Only A2A serving reads the store ($AGENT_SPACES_STORE too): a bad value must not stop an MCP agent server.
    const store = resolveStoreUrl(options.store ? { option: options.store } : {});
    // With a store, tasks/get answers from it: on any replica, and after a restart.
    const taskStores = store === undefined ? undefined : await openA2ATaskStores(store);
    const running = await serveAgentDirsA2A(
      options.dirs.map((dir) => resolve(options.cwd, dir)),
      { port: port(options.a2a, '--a2a'), ...host, ...(token ? { token } : {}), log: progress, ...(taskStores ? { taskStores } : {}) },
    ).catch(async (error: unknown) => {
      await taskStores?.close();
      throw error;
    });
    progress(`A2A server at ${running.origin}${store === undefined ? '' : ' (tasks in the store)'}`);
    stop = async () => {
      await running.close();
      await taskStores?.close();
    };
  } else {
    if (options.dirs.length > 1)
      throw new UsageError('an MCP server serves one agent; pass one directory, or use --a2a <port> to serve several');
    const running = await serveAgent(resolve(options.cwd, options.dirs[0] ?? '.'), {
      log: progress,
      ...(options.http !== undefined ? { http: { port: port(options.http, '--http'), ...host, ...(token ? { token } : {}) } } : {}),
    });
    stdio = options.http === undefined;
    stop = running.close;
  }
  await waitForShutdown(stdio);
  await stop();
  return 0;
}

export function port(value: string, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65535) throw new UsageError(`${flag} takes a port number (got "${value}")`);
  return number;
}

export function resolve(cwd: string, dir: string): string {
  return path.resolve(cwd, dir);
}

import path from 'node:path';
import { serveAgent, serveAgentDirsA2A } from '../../agents/index.js';
import { progress, UsageError } from '../output.js';

export interface AgentServeCommandOptions {
  cwd: string;
  dirs: string[];
  http?: string;
  a2a?: string;
  host?: string;
  token?: string;
}

/**
 * `agent-spaces agent serve <dir...>`: a Tools-mode agent as an MCP server (stdio, or `--http <port>`),
 * or with `--a2a <port>` one or more agents as A2A servers. Runs until interrupted (stdio: until stdin closes).
 */
export async function agentServeCommand(options: AgentServeCommandOptions): Promise<number> {
  if (options.dirs.length === 0) throw new UsageError('agent serve needs an agent directory: agent-spaces agent serve <dir> [--http <port> | --a2a <port>]');
  if (options.http !== undefined && options.a2a !== undefined) throw new UsageError('choose one of --http (MCP) and --a2a (A2A)');
  const host = options.host ? { host: options.host } : {};
  const token = options.token ?? process.env.AGENT_SPACES_SERVE_TOKEN;
  let stop: () => Promise<void>;
  let stdio = false;
  if (options.a2a !== undefined) {
    const running = await serveAgentDirsA2A(
      options.dirs.map((dir) => resolve(options.cwd, dir)),
      { port: port(options.a2a, '--a2a'), ...host, ...(token ? { token } : {}), log: progress },
    );
    progress(`A2A server at ${running.origin}`);
    stop = running.close;
  } else {
    if (options.dirs.length > 1) throw new UsageError('an MCP server serves one agent; pass one directory, or use --a2a <port> to serve several');
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

export function waitForShutdown(stdio: boolean): Promise<void> {
  return new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (stdio) process.stdin.once('close', done);
  });
}

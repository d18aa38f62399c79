import { existsSync } from 'node:fs';
import path from 'node:path';
import { serveAgents } from '../../agents/index.js';
import { secretsOfModel } from '../../sources/index.js';
import { openAgentSessionStore, resolveStoreUrl } from '../../store/index.js';
import { progress, UsageError } from '../output.js';
import { waitForShutdown } from '../wait-for-shutdown.js';
import { port } from './agent.js';

export interface AgentsServeCommandOptions {
  cwd: string;
  /** A config file with `agents: [...]`, or agent directories and A2A URLs. */
  inputs: string[];
  http?: string;
  host?: string;
  token?: string;
  /** Keep sessions in this store (default $AGENT_SPACES_STORE; none: files in the config's sessionsDir). */
  store?: string;
}

/** `agent-spaces agents serve <config>`: the orchestration tools (list_agents, execute_agent, get_agent_memory) over MCP. */
export async function agentsServeCommand(options: AgentsServeCommandOptions): Promise<number> {
  if (options.inputs.length === 0)
    throw new UsageError('agents serve needs a config file with "agents": [...] (or agent directories / A2A URLs)');
  const missing = options.inputs.find((input) => !/^(https?|file):\/\//i.test(input) && !existsSync(path.resolve(options.cwd, input)));
  if (missing !== undefined) {
    throw new UsageError(
      `agents serve: no file or folder at ${path.resolve(options.cwd, missing)} (give a config file with "agents": [...], agent directories, or A2A URLs)`,
    );
  }
  const token = options.token ?? process.env.AGENT_SPACES_SERVE_TOKEN;
  const store = resolveStoreUrl(options.store ? { option: options.store } : {});
  // With a store, execute_agent's sessions are its table: a follow-up may land on any replica.
  const agentSessions = store === undefined ? undefined : await openAgentSessionStore(store, secretsOfModel(undefined));
  try {
    const running = await serveAgents(options.inputs, {
      cwd: options.cwd,
      log: progress,
      ...(agentSessions ? { agentSessions } : {}),
      ...(options.http !== undefined
        ? { http: { port: port(options.http, '--http'), ...(options.host ? { host: options.host } : {}), ...(token ? { token } : {}) } }
        : {}),
    });
    await waitForShutdown(options.http === undefined);
    await running.close();
  } finally {
    await agentSessions?.close();
  }
  return 0;
}

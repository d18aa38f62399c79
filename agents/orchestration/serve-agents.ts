import { createAgentDirectory, type AgentDirectory } from './agent-directory.js';
import { loadOrchestrationConfig } from './load-orchestration-config.js';
import { createOrchestrationMcpServer } from './orchestration-mcp-server.js';
import { createOrchestrationTools, type OrchestrationTools } from './orchestration-tools.js';
import { createSessionStore, type SessionStore } from './session-store.js';
import { serveMcp, type McpServeOptions, type RunningMcpServer } from '../../server/index.js';
import type { AgentRunnerOptions } from '../run-agent.js';

export const ORCHESTRATION_SERVER_INFO = { name: 'agent-spaces-agents', version: '0.1.0' };

export interface ServeAgentsOptions extends McpServeOptions, Omit<AgentRunnerOptions, 'outDir'> {
  cwd?: string;
  /** Where sessions are kept (with a store: its table, so replicas share them); default files in the config's `sessionsDir`. */
  agentSessions?: SessionStore;
}

export interface RunningAgentsServer extends RunningMcpServer {
  tools: OrchestrationTools;
  directory: AgentDirectory;
}

/** `agent-spaces agents serve <config>`: list_agents, execute_agent and get_agent_memory over MCP. */
export async function serveAgents(inputs: string[], options: ServeAgentsOptions = {}): Promise<RunningAgentsServer> {
  const config = await loadOrchestrationConfig(inputs, options.cwd);
  const model = options.model ?? config.model;
  const directory = createAgentDirectory(config.agents, { ...options, ...(model ? { model } : {}) });
  const sessions = options.agentSessions ?? createSessionStore(config.sessionsDir);
  const tools = createOrchestrationTools(directory, sessions);
  const running = await serveMcp(() => createOrchestrationMcpServer(tools, ORCHESTRATION_SERVER_INFO), options);
  options.log?.(`agents: ${config.agents.length} agent(s), sessions in ${sessions.location}; serving MCP ${running.url ?? 'on stdio'}`);
  return {
    tools,
    directory,
    ...(running.url ? { url: running.url } : {}),
    async close() {
      await running.close();
      await directory.close();
    },
  };
}

import { errorMessage } from '../core/index.js';
import { resolveModelSettings } from '../planner/index.js';
import { createAgentMcpServer } from './agent-mcp-server.js';
import { AgentError } from './agent-error.js';
import { loadAgent } from './load-agent.js';
import { serveMcp, type McpServeOptions, type RunningMcpServer } from '../server/index.js';
import { resolveAgentModel } from './resolve-agent-model.js';
import { createAgentRunner, type AgentRunner, type AgentRunnerOptions } from './run-agent.js';

export interface ServeAgentOptions extends McpServeOptions, AgentRunnerOptions {}

export interface RunningAgentServer extends RunningMcpServer {
  runner: AgentRunner;
}

/** `agent-spaces agent serve <dir>`: a Tools-mode agent as an MCP server (stdio, or Streamable HTTP). */
export async function serveAgent(dir: string, options: ServeAgentOptions = {}): Promise<RunningAgentServer> {
  const agent = await loadAgent(dir, options.env ? { env: options.env } : {});
  if (agent.mode !== 'tools') {
    throw new AgentError(
      'AGENT_NOT_TOOLS_MODE',
      `agent "${agent.name}" (${agent.dir}) is in ${agent.mode} mode and has no tools to serve over MCP; add metadata.tools, or serve it over A2A with --a2a <port>`,
    );
  }
  const runner = createAgentRunner(agent, options);
  const running = await serveMcp(() => createAgentMcpServer(runner), options);
  options.log?.(`agent "${agent.name}" ${agent.version}: serving ${agent.tools.length} tool(s) over MCP ${running.url ?? 'on stdio'}`);
  const problem = modelProblem(runner, options);
  if (problem)
    options.log?.(`warning: agent "${agent.name}" has no model to answer with: ${problem}; every call will fail until it is set`);
  return {
    runner,
    ...(running.url ? { url: running.url } : {}),
    async close() {
      await running.close();
      await runner.close();
    },
  };
}

/** Why sessions cannot reach a model, checked the way a session will (without contacting it). */
function modelProblem(runner: AgentRunner, options: ServeAgentOptions): string | undefined {
  try {
    // The planner reads the environment itself, so the fallback is checked against process.env too.
    resolveModelSettings(resolveAgentModel(runner.agent, options.model, options.env));
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

import { loadAgent } from '../load-agent.js';
import { createAgentRunner, type AgentRunnerOptions } from '../run-agent.js';
import { serveA2A, type A2AServeOptions, type RunningA2AServer } from './serve-a2a.js';

/** `agent-spaces agent serve <dir...> --a2a <port>`: loads each agent directory and serves them all over A2A. */
export async function serveAgentDirsA2A(
  dirs: string[],
  options: A2AServeOptions & Omit<AgentRunnerOptions, 'outDir'>,
): Promise<RunningA2AServer> {
  const agents = await Promise.all(dirs.map((dir) => loadAgent(dir, options.env ? { env: options.env } : {})));
  const runners = agents.map((agent) => createAgentRunner(agent, options));
  const running = await serveA2A(runners, options);
  return {
    ...running,
    async close() {
      await running.close();
      await Promise.all(runners.map((runner) => runner.close()));
    },
  };
}

import { createSpace, type Space, type SpaceOptions } from '../space/index.js';
import { loadConfig, type ResolvedConfig } from '../config/index.js';
import { loadAgentCapabilities } from './load-agent-capabilities.js';
import type { SessionStore } from './orchestration/session-store.js';

/**
 * Opens a space with everything its config names, agents included: each Tools-mode agent directory in
 * `agents` becomes `@capabilities/agent-<name>` (calls run headless sessions), and `@capabilities/agents`
 * offers `list_agents`, `execute_agent` and `get_agent_memory` over every listed agent (directories and
 * A2A URLs). Without `agents` in the config it is `createSpace`. An agent that fails to load is reported
 * by the build like a broken source file. `agentOptions.sessions` keeps `execute_agent` sessions elsewhere
 * than the files under the config's `agentSessions` (a worker with a store: the store's table).
 *
 * @example
 * const space = await openSpace({ cwd: 'my-space' });
 * const result = await space.run(`import { agentStationGuide } from '@capabilities/agent-station-guide'; ...`);
 * await space.close();
 */
export async function openSpace(options: SpaceOptions = {}, agentOptions: { sessions?: SessionStore } = {}): Promise<Space> {
  const config: ResolvedConfig =
    options.config ??
    (await loadConfig({ ...(options.cwd ? { cwd: options.cwd } : {}), ...(options.configFile ? { file: options.configFile } : {}) }));
  if (config.agents.length === 0) return createSpace({ ...options, config });
  const agents = await loadAgentCapabilities(config.agents, {
    root: config.root,
    model: config.model,
    orchestration: { sessionsDir: config.agentSessions, ...(agentOptions.sessions ? { sessions: agentOptions.sessions } : {}) },
  });
  const space = await createSpace({
    ...options,
    config,
    // The agents join the sources the caller chose (or the defaults).
    sources: (defaults) => [
      ...(typeof options.sources === 'function' ? options.sources(defaults) : (options.sources ?? defaults)),
      agents.source,
    ],
  });
  return {
    ...space,
    config: space.config,
    async close() {
      await space.close();
      await agents.close();
    },
  };
}

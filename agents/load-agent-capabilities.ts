import path from 'node:path';
import { createInProcessBackend, type Backend } from '../bridge/index.js';
import { isRemoteAgent, resolveAgentEntry } from '../config/index.js';
import { errorMessage } from '../core/index.js';
import type { CapabilitySource, HostTool } from '../sources/index.js';
import { connectA2AAgent, type RemoteAgent } from './a2a/connect-a2a-agent.js';
import { remoteAgentHostTool, remoteAgentModuleName } from './a2a/remote-agent-capability.js';
import { createAgentBackend } from './agent-backend.js';
import { agentHostTool, agentModuleName, createAgentSource } from './agent-source.js';
import { agentSecrets } from './agent-secrets.js';
import { loadAgent } from './load-agent.js';
import { createAgentDirectory } from './orchestration/agent-directory.js';
import { ORCHESTRATION_MODULE, orchestrationHostTool } from './orchestration/orchestration-capability.js';
import { createOrchestrationTools } from './orchestration/orchestration-tools.js';
import { createSessionStore, type SessionStore } from './orchestration/session-store.js';
import { createAgentRunner, type AgentRunner, type AgentRunnerOptions } from './run-agent.js';

export interface AgentCapabilitiesOptions extends Omit<AgentRunnerOptions, 'outDir'> {
  /** The folder relative entries are resolved against (the config's folder). */
  root: string;
  /**
   * Also compile `@capabilities/agents` (list/execute/memory over every entry) with sessions in
   * `sessions` (with a store, its table), else as files in `sessionsDir`.
   */
  orchestration?: { sessionsDir: string; sessions?: SessionStore };
}

export interface AgentCapabilities {
  /** The agents as a capability source, for `createSpace({ sources })` or `buildCapabilities({ sources })`. */
  source: CapabilitySource;
  /** One `@capabilities/agent-<name>` per Tools-mode agent (+ `agents`), as host tools. */
  tools: HostTool[];
  /** For the bridge: the backend of each of those modules (sessions with progress, cancellation). */
  backends: Record<string, Backend>;
  /** Entries that are not Tools-mode agent directories, or failed to load (an A2A server that did not answer). */
  problems: string[];
  close(): Promise<void>;
}

/**
 * Everything a space needs to offer agents as capabilities: `entries` are agent directories and A2A
 * URLs. Each Tools-mode agent becomes `@capabilities/agent-<name>`, its calls running headless sessions
 * in the agent's own space; each A2A agent becomes `@capabilities/agent-<card name>` with one function,
 * `sendMessage({ message, contextId? })` (its card is fetched now, so a server that does not answer is
 * a problem reported by the build).
 */
export async function loadAgentCapabilities(entries: string[], options: AgentCapabilitiesOptions): Promise<AgentCapabilities> {
  const runners: Record<string, AgentRunner> = {};
  const tools: HostTool[] = [];
  const problems: string[] = [];
  const backends: Record<string, Backend> = {};
  const remotes: RemoteAgent[] = [];
  const taken = new Map<string, string>();
  const claim = (module: string, entry: string): boolean => {
    const holder = taken.get(module);
    if (holder !== undefined) {
      problems.push(`${entry}: module @capabilities/${module} is already taken by ${holder}; rename one agent`);
      return false;
    }
    taken.set(module, entry);
    return true;
  };
  for (const entry of entries) {
    if (isRemoteAgent(entry)) {
      try {
        const remote = await connectA2AAgent(entry);
        remotes.push(remote);
        if (!claim(remoteAgentModuleName(remote), entry)) continue;
        const tool = remoteAgentHostTool(remote);
        tools.push(tool);
        backends[tool.module] = backendOfDefinition(tool);
      } catch (error) {
        problems.push(`${entry}: the A2A agent did not answer (its card at .well-known/agent-card.json): ${errorMessage(error)}`);
      }
      continue;
    }
    const dir = resolveAgentEntry(entry, options.root);
    try {
      const agent = await loadAgent(dir, options.env ? { env: options.env } : {});
      if (agent.mode !== 'tools') {
        problems.push(
          `${entry}: agent "${agent.name}" is in ${agent.mode} mode; only Tools-mode agents become @capabilities/agent-* modules`,
        );
        continue;
      }
      const module = agentModuleName(agent);
      if (!claim(module, agent.dir)) continue;
      runners[module] = createAgentRunner(agent, options);
      tools.push(agentHostTool(runners[module], path.relative(options.root, dir).split(path.sep).join('/') || '.'));
    } catch (error) {
      problems.push(`${entry}: ${errorMessage(error)}`);
    }
  }
  const backend = createAgentBackend(runners);
  for (const module of Object.keys(runners)) backends[module] = backend;
  let closeDirectory = async () => undefined as void;
  if (options.orchestration) {
    const directory = createAgentDirectory(
      entries.map((entry) => resolveAgentEntry(entry, options.root)),
      { ...options, runners: Object.values(runners), remotes },
    );
    const tool = orchestrationHostTool(
      createOrchestrationTools(directory, options.orchestration.sessions ?? createSessionStore(options.orchestration.sessionsDir)),
      options.root,
    );
    tools.push(tool);
    closeDirectory = () => directory.close();
    backends[ORCHESTRATION_MODULE] = backendOfDefinition(tool);
  }
  return {
    source: createAgentSource({
      tools,
      backends,
      problems,
      secrets: Object.values(runners).flatMap((runner) => agentSecrets(runner.agent)),
    }),
    tools,
    backends,
    problems,
    async close() {
      await Promise.all([backend.close(), closeDirectory()]);
    },
  };
}

/** The orchestration module runs in-process: its definition's handlers are the backend. */
function backendOfDefinition(tool: HostTool): Backend {
  return createInProcessBackend({ [tool.module]: tool.definition });
}

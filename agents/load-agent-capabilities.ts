import path from 'node:path';
import { createInProcessBackend, type Backend } from '../bridge/index.js';
import type { ExtraTool } from '../compiler/index.js';
import { errorMessage } from '../core/index.js';
import { createAgentBackend } from './agent-backend.js';
import { agentExtraTool, agentModuleName } from './agent-source.js';
import { loadAgent } from './load-agent.js';
import { createAgentDirectory } from './orchestration/agent-directory.js';
import { ORCHESTRATION_MODULE, orchestrationExtraTool } from './orchestration/orchestration-capability.js';
import { createOrchestrationTools } from './orchestration/orchestration-tools.js';
import { createSessionStore } from './orchestration/session-store.js';
import { createAgentRunner, type AgentRunner, type AgentRunnerOptions } from './run-agent.js';

export interface AgentCapabilitiesOptions extends Omit<AgentRunnerOptions, 'outDir'> {
  /** The folder relative entries are resolved against (the config's folder). */
  root: string;
  /** Also compile `@capabilities/agents` (list/execute/memory over every entry) with sessions here. */
  orchestration?: { sessionsDir: string };
}

export interface AgentCapabilities {
  /** For `buildCapabilities({ extraTools })`: one `@capabilities/agent-<name>` per Tools-mode agent (+ `agents`). */
  extraTools: ExtraTool[];
  /** For the bridge: the backend of each of those modules (sessions with progress, cancellation). */
  backends: Record<string, Backend>;
  /** Entries that are not Tools-mode agent directories, or failed to load (A2A URLs are orchestration-only). */
  problems: string[];
  close(): Promise<void>;
}

/**
 * Everything a space needs to offer agents as capabilities: `entries` are agent directories (and, for
 * orchestration, A2A URLs). Each Tools-mode agent becomes `@capabilities/agent-<name>`; its calls run
 * headless sessions in the agent's own space.
 */
export async function loadAgentCapabilities(entries: string[], options: AgentCapabilitiesOptions): Promise<AgentCapabilities> {
  const runners: Record<string, AgentRunner> = {};
  const extraTools: ExtraTool[] = [];
  const problems: string[] = [];
  for (const entry of entries) {
    if (/^https?:\/\//i.test(entry)) continue;
    const dir = path.resolve(options.root, entry);
    try {
      const agent = await loadAgent(dir, options.env ? { env: options.env } : {});
      if (agent.mode !== 'tools') {
        problems.push(`${entry}: agent "${agent.name}" is in ${agent.mode} mode; only Tools-mode agents become @capabilities/agent-* modules`);
        continue;
      }
      const module = agentModuleName(agent);
      if (runners[module]) {
        problems.push(`${entry}: module @capabilities/${module} is already taken by ${runners[module].agent.dir}; rename one agent`);
        continue;
      }
      runners[module] = createAgentRunner(agent, options);
      extraTools.push(agentExtraTool(runners[module], path.relative(options.root, dir).split(path.sep).join('/') || '.'));
    } catch (error) {
      problems.push(`${entry}: ${errorMessage(error)}`);
    }
  }
  const backend = createAgentBackend(runners);
  const backends: Record<string, Backend> = Object.fromEntries(Object.keys(runners).map((module) => [module, backend]));
  let closeDirectory = async () => undefined as void;
  if (options.orchestration) {
    const directory = createAgentDirectory(
      entries.map((entry) => (/^[a-z]+:\/\//i.test(entry) ? entry : path.resolve(options.root, entry))),
      { ...options, runners: Object.values(runners) },
    );
    const tool = orchestrationExtraTool(createOrchestrationTools(directory, createSessionStore(options.orchestration.sessionsDir)), options.root);
    extraTools.push(tool);
    closeDirectory = () => directory.close();
    backends[ORCHESTRATION_MODULE] = backendOfDefinition(tool);
  }
  return {
    extraTools,
    backends,
    problems,
    async close() {
      await Promise.all([backend.close(), closeDirectory()]);
    },
  };
}

/** The orchestration module runs in-process: its definition's handlers are the backend. */
function backendOfDefinition(tool: ExtraTool): Backend {
  return createInProcessBackend({ [tool.module]: tool.definition });
}

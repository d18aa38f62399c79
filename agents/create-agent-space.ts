import path from 'node:path';
import type { CatalogEntry } from '../compiler/index.js';
import { mcpModuleName } from '../sources/index.js';
import type { ResolvedConfig } from '../config/index.js';
import { createSpace, type Space } from '../space/index.js';
import type { Agent } from './agent.js';

export interface AgentSpace {
  space: Space;
  /** Offers a session only the agent's own MCP tools that need no approval. */
  allow(entry: CatalogEntry): boolean;
}

/**
 * The space an agent's sessions run in: its own `mcpServers`, each `@capabilities/mcp-<server>`, and
 * nothing else (no capability files, no standard library). Built into `<dir>/.agent-spaces` unless
 * `outDir` says otherwise. A headless session is offered only the tools that need no approval.
 */
export async function createAgentSpace(agent: Agent, options: { outDir?: string } = {}): Promise<AgentSpace> {
  const outDir = path.resolve(options.outDir ?? path.join(agent.dir, '.agent-spaces'));
  const config: ResolvedConfig = {
    root: agent.dir,
    capabilities: [],
    mcpServers: agent.mcpServers,
    outDir,
    sandbox: {},
    std: { fs: { root: path.join(outDir, 'workspace') } },
    model: {},
    agents: [],
    agentSessions: path.join(outDir, 'sessions'),
  };
  const space = await createSpace({ config });
  const modules = new Set(Object.entries(agent.mcpServers).map(([name, server]) => mcpModuleName(name, server)));
  return { space, allow: (entry) => !entry.requiresApproval && modules.has(entry.module) };
}

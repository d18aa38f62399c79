import type { Secret } from '../core/index.js';
import { secretsOfMcpServer, secretsOfModel } from '../sources/index.js';
import type { Agent } from './agent.js';
import { resolveAgentModel } from './resolve-agent-model.js';

/** The secrets an agent holds: those of its MCP servers (as the MCP source declares them) and its model key. */
export function agentSecrets(agent: Agent): Secret[] {
  let apiKey: string | undefined;
  try {
    apiKey = resolveAgentModel(agent).apiKey;
  } catch {
    // An agent without a usable model has no key to hide; its sessions fail and say why.
  }
  return [...Object.values(agent.mcpServers).flatMap(secretsOfMcpServer), ...secretsOfModel(apiKey)];
}

import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import type { Agent } from '../agent.js';

/**
 * The A2A v1.0 agent card of an agent: name, description, version (and `provider`, `iconUrl`,
 * `documentationUrl` when the metadata has them) from its metadata; its skills
 * (Autonomous) or one skill per tool (Tools mode); one JSON-RPC interface at `url`.
 */
export async function buildAgentCard(agent: Agent, url: string): Promise<AgentCard> {
  const { A2A_PROTOCOL_VERSION } = await import('@a2a-js/sdk');
  const skills: AgentSkill[] =
    agent.mode === 'tools'
      ? agent.tools.map((tool) => skill(tool.name, tool.name, tool.description, ['tool'], []))
      : agent.skills.map((s) => skill(s.id, s.name, s.description, s.tags ?? [], s.examples ?? []));
  if (skills.length === 0) skills.push(skill('chat', agent.name, agent.description ?? `Talk to ${agent.name}`, ['chat'], []));
  return {
    name: agent.name,
    description: agent.description ?? agent.name,
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: provider(agent.metadata.provider),
    version: agent.version,
    ...(typeof agent.metadata.iconUrl === 'string' ? { iconUrl: agent.metadata.iconUrl } : {}),
    ...(typeof agent.metadata.documentationUrl === 'string' ? { documentationUrl: agent.metadata.documentationUrl } : {}),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills,
    signatures: [],
  };
}

function skill(id: string, name: string, description: string, tags: string[], examples: string[]): AgentSkill {
  return { id, name, description, tags, examples, inputModes: [], outputModes: [], securityRequirements: [] };
}

function provider(value: unknown): AgentCard['provider'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { organization, url } = value as { organization?: unknown; url?: unknown };
  return typeof organization === 'string' ? { organization, url: typeof url === 'string' ? url : '' } : undefined;
}

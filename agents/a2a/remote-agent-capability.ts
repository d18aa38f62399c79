import { defineTool, toModuleName, type JsonSchema } from '../../core/index.js';
import type { HostTool } from '../../sources/index.js';
import type { RemoteAgent } from './connect-a2a-agent.js';

/** The one function a remote A2A agent offers: A2A sends messages to an agent, not calls to its skills. */
export const REMOTE_AGENT_FUNCTION = 'sendMessage';

const PARAMETERS = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'What to ask or tell the agent, in words' },
    contextId: { type: 'string', description: 'The contextId of an earlier answer, to continue that conversation (default: a new one)' },
  },
  required: ['message'],
  additionalProperties: false,
} as const satisfies JsonSchema;

const RESULT = {
  type: 'object',
  properties: {
    text: { type: 'string', description: "The agent's answer (its artifacts' text, else its status message)" },
    contextId: { type: 'string', description: 'The conversation the remote agent kept: pass it back to continue' },
  },
  required: ['text', 'contextId'],
  additionalProperties: false,
} as const satisfies JsonSchema;

/** `@capabilities/agent-<name>` of a remote agent: its card's name, like a local agent's. */
export function remoteAgentModuleName(remote: Pick<RemoteAgent, 'card'>): string {
  return `agent-${toModuleName(remote.card.name)}`;
}

/**
 * A remote A2A agent listed in the config as a capability: `sendMessage({ message, contextId? })`
 * sends one blocking message and resolves to `{ text, contextId }`. The card's skills are listed in the
 * description (so search finds them), since A2A routes by message, not by skill. A call's cancellation
 * (its run ends) aborts the request.
 */
export function remoteAgentHostTool(remote: RemoteAgent): HostTool {
  const { card } = remote;
  const skills = card.skills.map(
    (skill) =>
      `- ${skill.name}: ${skill.description}${skill.examples.length > 0 ? ` (e.g. "${skill.examples.slice(0, 2).join('", "')}")` : ''}`,
  );
  const description = [
    `Sends a message to the A2A agent "${card.name}" (${remote.url}) and resolves to its answer text and the conversation's contextId.`,
    ...(skills.length > 0 ? ['Its skills:', ...skills] : []),
  ].join('\n');
  return {
    module: remoteAgentModuleName(remote),
    source: { kind: 'agent', path: remote.url },
    definition: defineTool({
      name: card.name,
      description: `${card.description} (remote A2A agent at ${remote.url})`,
      version: card.version,
      functions: {
        [REMOTE_AGENT_FUNCTION]: {
          description,
          parameters: PARAMETERS,
          returns: RESULT,
          handler: async (args: never, context) => {
            const { message, contextId } = args as { message: string; contextId?: string };
            return remote.send(message, { ...(contextId ? { contextId } : {}), signal: context.signal });
          },
        },
      },
    }),
  };
}

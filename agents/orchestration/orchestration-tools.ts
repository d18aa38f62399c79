import { errorMessage } from '../../core/index.js';
import type { AgentDirectory } from './agent-directory.js';
import type { SessionMessage, SessionStore } from './session-store.js';

/** How many messages `get_agent_memory` returns at most (the most recent ones). */
export const MEMORY_LIMIT = 50;

export type OrchestrationError = { status: 'error'; message: string };

export interface ListAgentsResult {
  status: 'success';
  agents: {
    name: string;
    description: string;
    kind: 'local' | 'a2a';
    location: string;
    mode?: string;
    version?: string;
    abilities: string[];
  }[];
  count: number;
  /** Entries of the config that could not be loaded. */
  problems?: string[];
}

export type ExecuteAgentResult = { status: 'success'; content: string; session_id: string } | OrchestrationError;

export type AgentMemoryResult = { status: 'success'; session_id: string; logs: { role: string; content: string }[] } | OrchestrationError;

/** The orchestration tools of the seed (`list_agents`, `execute_agent`, `get_agent_memory`) over a directory of agents. */
export interface OrchestrationTools {
  listAgents(): Promise<ListAgentsResult>;
  executeAgent(
    args: { agent_name: string; prompt: string; session_id?: string },
    options?: { signal?: AbortSignal },
  ): Promise<ExecuteAgentResult>;
  getAgentMemory(args: { session_id: string }): Promise<AgentMemoryResult>;
}

export function createOrchestrationTools(directory: AgentDirectory, sessions: SessionStore): OrchestrationTools {
  return {
    async listAgents() {
      const { agents, problems } = await directory.list();
      return {
        status: 'success',
        agents: agents.map(({ name, description, kind, location, mode, version, abilities }) => ({
          name,
          description,
          kind,
          location,
          ...(mode ? { mode } : {}),
          ...(version ? { version } : {}),
          abilities,
        })),
        count: agents.length,
        ...(problems.length > 0 ? { problems } : {}),
      };
    },

    async executeAgent({ agent_name: name, prompt, session_id: requested }, options = {}) {
      const agent = await directory.find(name);
      if (!agent) return { status: 'error', message: `Agent '${name}' not found.` };
      try {
        const id = requested ?? sessions.newId();
        const earlier = await sessions.get(id);
        const context = earlier && earlier.messages.length > 0 ? formatHistory(earlier.messages.slice(-MEMORY_LIMIT)) : undefined;
        const answer = await agent.run(prompt, {
          ...(context ? { context } : {}),
          ...(earlier?.remoteContextId ? { remoteContextId: earlier.remoteContextId } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
          // The session's programs share their session state (@capabilities/session), turn after turn.
          session: `agent:${id}`,
        });
        await sessions.update(id, agent.name, (session) => {
          const timestamp = new Date().toISOString();
          session.messages.push({ role: 'user', content: prompt, timestamp }, { role: 'assistant', content: answer.text, timestamp });
          if (answer.remoteContextId) session.remoteContextId = answer.remoteContextId;
        });
        return { status: 'success', content: answer.text, session_id: id };
      } catch (error) {
        return { status: 'error', message: `Failed to execute agent ${agent.name}: ${errorMessage(error)}` };
      }
    },

    async getAgentMemory({ session_id: id }) {
      try {
        const session = await sessions.get(id);
        if (!session) return { status: 'error', message: `Session ${id} not found.` };
        return {
          status: 'success',
          session_id: id,
          logs: session.messages.slice(-MEMORY_LIMIT).map(({ role, content }) => ({ role, content })),
        };
      } catch (error) {
        return { status: 'error', message: `Failed to retrieve memory for ${id}: ${errorMessage(error)}` };
      }
    },
  };
}

function formatHistory(messages: SessionMessage[]): string {
  return `Earlier messages of this session (oldest first):\n${messages.map((message) => `${message.role}: ${message.content}`).join('\n')}`;
}

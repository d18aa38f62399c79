import {
  CompileError,
  ToolCallError,
  defineTool,
  sourceLabel,
  toModuleName,
  type AnyFunctionDefinition,
  type Backend,
  type JsonSchema,
  type RawCapability,
  type Secret,
} from '../core/index.js';
import { discoverHostTools, type CapabilitySource, type HostTool } from '../sources/index.js';
import type { Agent } from './agent.js';
import { loadAgent, type LoadAgentOptions } from './load-agent.js';
import type { AgentRunner } from './run-agent.js';

declare module '../core/manifest.js' {
  interface CapabilityOrigins {
    /** A Tools-mode agent's directory. */
    agent: { path: string };
  }
}

/** `@capabilities/agent-<name>`: the module of a Tools-mode agent. */
export function agentModuleName(agent: Pick<Agent, 'name'>): string {
  return `agent-${toModuleName(agent.name)}`;
}

const STRING_RESULT: JsonSchema = { type: 'string' };

/**
 * A Tools-mode agent as a capability: one function per tool, its input schema the tool's parameters,
 * its result the answer text. Other modes have no tools to offer and fail with a `CompileError`.
 */
export function agentToRawCapability(agent: Agent): RawCapability {
  if (agent.mode !== 'tools') {
    throw new CompileError(
      'AGENT_NOT_TOOLS_MODE',
      `agent "${agent.name}" (${agent.dir}) is in ${agent.mode} mode; only Tools-mode agents (metadata.tools) become capabilities`,
    );
  }
  return {
    name: agent.name,
    module: agentModuleName(agent),
    ...(agent.description !== undefined ? { description: agent.description } : {}),
    version: agent.version,
    source: { kind: 'agent', path: agent.dir },
    config: {},
    functions: agent.tools.map((tool) => ({
      toolName: tool.name,
      description: tool.description,
      inputSchema: structuredClone(tool.parameters) as unknown as JsonSchema,
      outputSchema: STRING_RESULT,
      resultKind: 'value' as const,
    })),
  };
}

/** The compiler's source loader for an agent directory (`source: {kind: 'agent', path}`). */
export async function loadAgentCapability(dir: string, options: LoadAgentOptions = {}): Promise<RawCapability> {
  return agentToRawCapability(await loadAgent(dir, options));
}

/**
 * The same capability as a `defineTool` definition, for the agents' capability source: its handlers
 * run the agent's sessions. Calls made through `createAgentBackend` never reach these handlers.
 * `sourcePath` replaces the agent's absolute directory in the source (e.g. a path relative to the config).
 */
export function agentHostTool(runner: AgentRunner, sourcePath?: string): HostTool {
  const raw = agentToRawCapability(runner.agent);
  const functions: Record<string, AnyFunctionDefinition> = {};
  for (const fn of raw.functions) {
    functions[fn.toolName] = {
      ...(fn.description ? { description: fn.description } : {}),
      parameters: fn.inputSchema,
      returns: STRING_RESULT,
      handler: async (args: never, context) =>
        (await runner.callTool(fn.toolName, args as Record<string, unknown>, { signal: context.signal })).text,
    };
  }
  return {
    definition: defineTool({
      name: raw.name,
      ...(raw.description ? { description: raw.description } : {}),
      version: runner.agent.version,
      functions,
    }),
    module: agentModuleName(runner.agent),
    // Relative to the config's folder, so the build output does not depend on where the space lives.
    source: sourcePath === undefined ? raw.source : { kind: 'agent', path: sourcePath },
  };
}

export interface AgentSourceParts {
  /** One `@capabilities/agent-<name>` per Tools-mode agent and A2A agent (+ `agents`), as host tools. */
  tools: readonly HostTool[];
  /** The backend of each of those modules (agent sessions with progress and cancellation). */
  backends: Readonly<Record<string, Backend>>;
  /** Entries that could not become capabilities, reported by every build like a broken file. */
  problems: readonly string[];
  /** The secrets the agents hold (their MCP servers', their model keys): see `agentSecrets`. */
  secrets?: readonly Secret[];
}

/**
 * The config's agents as a capability source (kind `agent`): each agent is one unit of the build, and
 * each module's calls go to its own backend (sessions, A2A clients, the orchestration tools). The
 * agents' sessions belong to whoever loaded them (`openSpace` closes them with the space), so closing
 * this backend closes nothing.
 */
export function createAgentSource(parts: AgentSourceParts): CapabilitySource {
  return {
    kind: 'agent',
    async discover(context) {
      const discovery = await discoverHostTools(context, parts.tools, sourceLabel);
      return { ...discovery, failures: parts.problems.map((message) => ({ source: 'agents', message })) };
    },
    async connect() {
      return routeByModule(parts.backends);
    },
    describe: sourceLabel,
    schemaNames: { input: 'inputSchema', output: 'outputSchema' },
    secrets: () => [...(parts.secrets ?? [])],
  };
}

function routeByModule(backends: Readonly<Record<string, Backend>>): Backend {
  const backendOf = (module: string, fn: string): Backend => {
    const backend = backends[module];
    if (backend === undefined)
      throw new ToolCallError('SERVER_UNAVAILABLE', `agent capability "${module}" is no longer loaded: rebuild the capabilities`, {
        capability: module,
        function: fn,
      });
    return backend;
  };
  return {
    call: async (call) => backendOf(call.capability.module, call.function.name).call(call),
    approvalMessage: (call) => backends[call.capability.module]?.approvalMessage?.(call),
    prepare: (capability) => backends[capability.module]?.prepare?.(capability),
    close: async () => undefined,
  };
}

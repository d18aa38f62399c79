import { toModuleName } from '../../compiler/index.js';
import { isRemoteAgent, resolveAgentEntry } from '../../config/index.js';
import { errorMessage } from '../../core/index.js';
import { connectA2AAgent, type RemoteAgent } from '../a2a/connect-a2a-agent.js';
import { loadAgent } from '../load-agent.js';
import { createAgentRunner, type AgentRunner, type AgentRunnerOptions } from '../run-agent.js';

/** One agent the orchestration tools know: a local directory or a remote A2A server. */
export interface KnownAgent {
  name: string;
  description: string;
  kind: 'local' | 'a2a';
  /** The directory or URL it came from. */
  location: string;
  mode?: string;
  version?: string;
  /** Tool names (Tools mode) or skill names. */
  abilities: string[];
  /** Runs one prompt, with the session's earlier messages as context. */
  run(
    prompt: string,
    options: { context?: string; remoteContextId?: string; signal?: AbortSignal; session?: string },
  ): Promise<{ text: string; remoteContextId?: string }>;
}

export interface AgentDirectory {
  list(): Promise<{ agents: KnownAgent[]; problems: string[] }>;
  /** By name: exact, then ignoring case, then as a module name (`station-guide` for "Station Guide"). */
  find(name: string): Promise<KnownAgent | undefined>;
  close(): Promise<void>;
}

/**
 * The agents of an orchestration config: `http(s)://` entries are A2A servers (their card is fetched
 * on first use); `file://` URLs and plain paths are agent directories (relative to `root`). An entry
 * that cannot be loaded is reported by `list` and skipped, so one broken agent does not hide the rest.
 */
export function createAgentDirectory(
  entries: string[],
  options: AgentRunnerOptions & { root?: string; runners?: AgentRunner[]; remotes?: RemoteAgent[] } = {},
): AgentDirectory {
  const runners: AgentRunner[] = [];
  // Runners the caller already has (and closes) are reused, so an agent keeps one space; remote agents
  // already connected keep their one client.
  const shared = new Map((options.runners ?? []).map((runner) => [runner.agent.dir, runner]));
  const connected = new Map((options.remotes ?? []).map((remote) => [remote.url, remote]));
  let loaded: Promise<{ agents: KnownAgent[]; problems: string[] }> | undefined;
  const load = async () => {
    const results = await Promise.all(
      entries.map(async (entry): Promise<KnownAgent | string> => {
        try {
          if (isRemoteAgent(entry))
            return fromRemote(connected.get(entry.endsWith('/') ? entry : `${entry}/`) ?? (await connectA2AAgent(entry)));
          const dir = resolveAgentEntry(entry, options.root ?? process.cwd());
          const existing = shared.get(dir);
          if (existing) return fromRunner(existing);
          const runner = createAgentRunner(await loadAgent(dir, options.env ? { env: options.env } : {}), options);
          runners.push(runner);
          return fromRunner(runner);
        } catch (error) {
          return `${entry}: ${errorMessage(error)}`;
        }
      }),
    );
    return {
      agents: results.filter((result): result is KnownAgent => typeof result !== 'string'),
      problems: results.filter((result): result is string => typeof result === 'string'),
    };
  };
  const list = () => {
    loaded ??= load();
    return loaded;
  };
  return {
    list,
    async find(name) {
      const { agents } = await list();
      return (
        agents.find((agent) => agent.name === name) ??
        agents.find((agent) => agent.name.toLowerCase() === name.toLowerCase()) ??
        agents.find((agent) => toModuleName(agent.name) === toModuleName(name))
      );
    },
    async close() {
      await Promise.all(runners.map((runner) => runner.close()));
    },
  };
}

function fromRunner(runner: AgentRunner): KnownAgent {
  const { agent } = runner;
  return {
    name: agent.name,
    description: agent.description ?? '',
    kind: 'local',
    location: agent.dir,
    mode: agent.mode,
    version: agent.version,
    abilities: agent.mode === 'tools' ? agent.tools.map((tool) => tool.name) : agent.skills.map((skill) => skill.name),
    async run(prompt, runOptions) {
      const answer = await runner.prompt(prompt, {
        ...(runOptions.context ? { context: runOptions.context } : {}),
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
        ...(runOptions.session ? { session: runOptions.session } : {}),
      });
      return { text: answer.text };
    },
  };
}

function fromRemote(remote: RemoteAgent): KnownAgent {
  return {
    name: remote.card.name,
    description: remote.card.description,
    kind: 'a2a',
    location: remote.url,
    version: remote.card.version,
    abilities: remote.card.skills.map((skill) => skill.name),
    async run(prompt, runOptions) {
      // The remote agent keeps its own history under its context id; our context is not re-sent.
      const answer = await remote.send(prompt, {
        ...(runOptions.remoteContextId ? { contextId: runOptions.remoteContextId } : {}),
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
      });
      return { text: answer.text, remoteContextId: answer.contextId };
    },
  };
}

import { randomUUID } from 'node:crypto';
import { errorMessage } from '../core/index.js';
import type { Agent } from './agent.js';
import { AgentError } from './agent-error.js';
import { agentInstructions } from './agent-instructions.js';
import { createAgentSpace, type AgentSpace } from './create-agent-space.js';
import { fillTemplate } from './prompt-template.js';
import { resolveAgentModel, type AgentModel } from './resolve-agent-model.js';
import { defaultTaskExecutor, type AgentTaskResult, type TaskExecutor } from './task-executor.js';

export interface AgentRunnerOptions {
  /** Fills what the agent's own provider settings leave unset (e.g. the space's `model`). */
  model?: AgentModel;
  /** Runs the session (default: the planner's `executeTask`). */
  executeTask?: TaskExecutor;
  /** Where the agent's space is built (default `<dir>/.agent-spaces`). */
  outDir?: string;
  env?: Record<string, string | undefined>;
}

export interface AgentRunOptions {
  signal?: AbortSignal;
  /** Earlier conversation (for `execute_agent` sessions), given to the planner as context. */
  context?: string;
  /** Every event of the session (planner steps, tool calls): for progress. */
  onEvent?: (event: { type: string }) => void;
  /** The caller's W3C trace context: the session's task span is its child. */
  traceparent?: string;
  /** The session-state scope of the session's runs (`@capabilities/session`): an `execute_agent` session's. */
  session?: string;
}

export interface AgentAnswer {
  /** The answer text: what the session finished with. */
  text: string;
  /** The session's unique context id. */
  contextId: string;
  task: AgentTaskResult;
}

/** Runs an agent's headless sessions; one per call, all in the agent's one (lazily started) space. */
export interface AgentRunner {
  readonly agent: Agent;
  /** Calls one of the agent's tools: fills its template and runs a session on it. */
  callTool(toolName: string, args: Record<string, unknown>, options?: AgentRunOptions): Promise<AgentAnswer>;
  /** Runs a session on a free-form prompt (A2A messages, `execute_agent`). */
  prompt(text: string, options?: AgentRunOptions): Promise<AgentAnswer>;
  close(): Promise<void>;
}

export function createAgentRunner(agent: Agent, options: AgentRunnerOptions = {}): AgentRunner {
  let spaceReady: Promise<AgentSpace> | undefined;
  const agentSpace = () => {
    spaceReady ??= createAgentSpace(agent, options.outDir ? { outDir: options.outDir } : {}).then(async (created) => {
      await created.space.build(); // once, before parallel sessions read the build
      return created;
    });
    spaceReady.catch(() => (spaceReady = undefined));
    return spaceReady;
  };

  async function run(task: string, runOptions: AgentRunOptions): Promise<AgentAnswer> {
    const contextId = randomUUID();
    const model = resolveAgentModel(agent, options.model, options.env);
    const executeTask = options.executeTask ?? defaultTaskExecutor;
    const { space, allow } = await agentSpace();
    runOptions.signal?.throwIfAborted(); // cancelled while the space was starting
    const maxSteps = agent.settings.maxTurns;
    let result: AgentTaskResult;
    try {
      result = await executeTask(task, {
        space,
        model,
        systemPrompt: agentInstructions(agent),
        tools: { allow },
        ...(maxSteps ? { budget: { maxSteps } } : {}),
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
        ...(runOptions.context ? { context: runOptions.context } : {}),
        ...(runOptions.onEvent ? { onEvent: runOptions.onEvent } : {}),
        ...(runOptions.traceparent ? { traceparent: runOptions.traceparent } : {}),
        ...(runOptions.session ? { session: runOptions.session } : {}),
      });
    } catch (error) {
      throw new AgentError('AGENT_SESSION_FAILED', `agent "${agent.name}" (session ${contextId}): ${errorMessage(error)}`, {
        cause: error,
        details: { contextId },
      });
    }
    if (!result.success) {
      const reason = result.error === undefined ? result.finalSummary || 'the session did not finish' : errorMessage(result.error);
      throw new AgentError('AGENT_SESSION_FAILED', `agent "${agent.name}" (session ${contextId}): ${reason}`, { details: { contextId } });
    }
    return { text: answerText(result), contextId, task: result };
  }

  return {
    agent,
    async callTool(toolName, args, runOptions = {}) {
      const tool = agent.tools.find((candidate) => candidate.name === toolName);
      if (!tool) {
        throw new AgentError(
          'AGENT_TOOL_NOT_FOUND',
          `agent "${agent.name}" has no tool "${toolName}" (tools: ${agent.tools.map((t) => t.name).join(', ') || 'none'})`,
        );
      }
      return run(fillTemplate(tool, args), runOptions);
    },
    prompt: (text, runOptions = {}) => run(text, runOptions),
    async close() {
      const ready = spaceReady;
      spaceReady = undefined;
      if (ready) await (await ready.catch(() => undefined))?.space.close();
    },
  };
}

/** The answer of a finished session: a string `result` when the planner gave one, else its summary. */
function answerText(result: AgentTaskResult): string {
  return typeof result.result === 'string' && result.result !== '' ? result.result : result.finalSummary;
}

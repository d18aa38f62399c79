import { randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  AGENT_FILE,
  checkAgentFile,
  createAgentRunner,
  fillTemplate,
  loadAgent,
  parseTemplate,
  resolveAgentModel,
  unknownPlaceholders,
  unusedParameters,
  type AgentTool,
} from '../../agents/index.js';
import { errorMessage, type ConfigIssue } from '../../core/index.js';
import { isRemoteAgent } from '../../config/index.js';
import { resolveModelSettings } from '../../planner/index.js';
import type { StudioContext } from './studio-context.js';
import { StudioError, isObject } from './studio-error.js';
import type { AgentListView, ToolCheckView } from './wire-types.js';

/** The agent directories of the config (A2A URLs are not edited here), each loaded or with its problem. */
export async function listAgents(context: StudioContext): Promise<AgentListView> {
  const dirs = agentDirs(context);
  return {
    agents: await Promise.all(
      dirs.map(async (dir, index) => {
        try {
          const agent = await loadAgent(dir);
          return { index, dir, name: agent.name, description: agent.description ?? '', mode: agent.mode, tools: agent.tools.length };
        } catch (error) {
          return { index, dir, name: path.basename(dir), mode: 'invalid', error: errorMessage(error) };
        }
      }),
    ),
  };
}

/** One agent's tools as written in its `tsagent.json`. */
export async function getAgent(context: StudioContext, index: number): Promise<unknown> {
  const dir = agentDir(context, index);
  const data = await readAgentFile(dir);
  const metadata = isObject(data.metadata) ? data.metadata : {};
  return {
    index,
    dir,
    name: metadata.name ?? path.basename(dir),
    tools: Array.isArray(metadata.tools) ? metadata.tools : [],
    mode: Array.isArray(metadata.tools) ? 'tools' : 'other',
  };
}

/**
 * Checks one tool as the editor shows it: the loader's errors for the agent file with this tool in it,
 * placeholders that name nothing, parameters the prompt never mentions, the template split for
 * highlighting, and the prompt filled with sample values (the library's filling, as a call would be).
 */
export async function checkTool(
  context: StudioContext,
  index: number,
  position: number,
  tool: unknown,
  sample: unknown,
): Promise<ToolCheckView> {
  const data = await readAgentFile(agentDir(context, index));
  const tools = toolsOf(data);
  const edited =
    position >= 0 && position < tools.length ? tools.map((existing, at) => (at === position ? tool : existing)) : [...tools, tool];
  const at = position >= 0 && position < tools.length ? position : tools.length;
  const issues = checkAgentFile(withTools(data, edited)).filter(
    (issue) => issue.path.startsWith(`${AGENT_FILE}: metadata.tools.${at}`) || !issue.path.includes('metadata.tools.'),
  );
  const shaped = isTemplateTool(tool) ? tool : undefined;
  return {
    errors: issues.map((issue) => ({
      path: issue.path.replace(`${AGENT_FILE}: metadata.tools.${at}`, '').replace(/^\./, '') || '(tool)',
      message: issue.message,
    })),
    unknownPlaceholders: shaped ? unknownPlaceholders(shaped) : [],
    warnings: shaped
      ? unusedParameters(shaped).map((name) => `parameter "${name}" is not used in the prompt template (write {${name}} where it belongs)`)
      : [],
    parts: shaped ? parseTemplate(shaped.prompt) : [],
    preview: shaped ? fillTemplate(shaped, isObject(sample) ? sample : {}) : '',
  };
}

/**
 * Replaces the agent's tools and writes `tsagent.json` atomically (a temporary file renamed over it),
 * keeping every other field as it was. Refused (422, with every problem) when the file would not load.
 */
export async function saveTools(context: StudioContext, index: number, tools: unknown[]): Promise<unknown> {
  const dir = agentDir(context, index);
  const data = withTools(await readAgentFile(dir), tools);
  const issues = checkAgentFile(data);
  if (issues.length > 0) throw invalidAgent(dir, issues);
  const file = path.join(dir, AGENT_FILE);
  const temporary = path.join(dir, `.${AGENT_FILE}.${randomUUID()}.tmp`);
  await writeFile(temporary, `${JSON.stringify(data, null, 2)}\n`);
  await rename(temporary, file);
  context.events.publish({ type: 'agent-saved', agent: index });
  return {
    saved: file,
    tools: tools.length,
    note: 'saved; rebuild the capabilities (Capabilities → Rebuild) for @capabilities/agent-* to pick the change up',
  };
}

/**
 * Runs one tool of the agent (as edited, saved or not) through its headless session. Needs a model:
 * without one, a 409 whose message is the planner's own "set this" message.
 */
export async function testTool(context: StudioContext, index: number, tool: unknown, args: unknown): Promise<unknown> {
  const dir = agentDir(context, index);
  const agent = await loadAgent(dir);
  if (!isTemplateTool(tool))
    throw new StudioError('STUDIO_BAD_REQUEST', 'request body: "tool" must be a tool with name, parameters and prompt');
  const model = resolveAgentModel(agent, context.config.model);
  try {
    resolveModelSettings(model, {});
  } catch (error) {
    throw new StudioError(
      'STUDIO_NO_MODEL',
      `testing a tool runs a session of agent "${agent.name}", which needs a model: ${errorMessage(error)}. The agent's own settings (tsagent.json settings.mostRecentModel and providers) come first. Restart the studio after setting it.`,
      { cause: error },
    );
  }
  const edited = { ...agent, tools: [...agent.tools.filter((existing) => existing.name !== tool.name), tool as AgentTool] };
  Object.defineProperty(edited, 'providers', { value: agent.providers, enumerable: false });
  const runner = createAgentRunner(edited, { model: context.config.model });
  const events: { type: string }[] = [];
  const prompt = fillTemplate(tool, isObject(args) ? args : {});
  try {
    const answer = await runner.callTool(tool.name, isObject(args) ? args : {}, { onEvent: (event) => events.push(context.redact(event)) });
    return { prompt, answer: context.redact(answer.text), events, result: context.redact(answer.task.result) };
  } catch (error) {
    return { prompt, error: context.redact(errorMessage(error)), events };
  } finally {
    await runner.close();
  }
}

function agentDirs(context: StudioContext): string[] {
  // The config's entries are resolved already: a directory is an absolute path.
  return context.config.agents.filter((entry) => !isRemoteAgent(entry));
}

function agentDir(context: StudioContext, index: number): string {
  const dir = agentDirs(context)[index];
  if (dir === undefined)
    throw new StudioError(
      'STUDIO_NOT_FOUND',
      `no agent directory #${index}: the config lists ${agentDirs(context).length} (config "agents")`,
    );
  return dir;
}

async function readAgentFile(dir: string): Promise<Record<string, unknown>> {
  const file = path.join(dir, AGENT_FILE);
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new StudioError('STUDIO_INVALID_AGENT', `cannot read ${file}: ${errorMessage(error)}`, { cause: error });
  }
  if (!isObject(data)) throw new StudioError('STUDIO_INVALID_AGENT', `${file} does not hold a JSON object`);
  return data;
}

function toolsOf(data: Record<string, unknown>): unknown[] {
  const metadata = isObject(data.metadata) ? data.metadata : {};
  return Array.isArray(metadata.tools) ? metadata.tools : [];
}

/** The file's data with other tools: every other field, known or not, stays as it was. */
function withTools(data: Record<string, unknown>, tools: unknown[]): Record<string, unknown> {
  const metadata = isObject(data.metadata) ? data.metadata : {};
  return { ...data, metadata: { ...metadata, tools } };
}

function isTemplateTool(tool: unknown): tool is AgentTool {
  return isObject(tool) && typeof tool.name === 'string' && typeof tool.prompt === 'string' && isObject(tool.parameters);
}

function invalidAgent(dir: string, issues: ConfigIssue[]): StudioError {
  return new StudioError(
    'STUDIO_INVALID_AGENT',
    `not saved: ${path.join(dir, AGENT_FILE)} would not load (${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')})`,
    { details: { issues } },
  );
}

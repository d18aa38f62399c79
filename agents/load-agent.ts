import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expandEnvDeep, isStdioServer, type McpServerConfig } from '../config/index.js';
import { errorMessage, type ConfigIssue } from '../core/index.js';
import type { Agent, AgentMode } from './agent.js';
import { agentFileSchema, type AgentFile } from './agent-definition.js';
import { AgentError } from './agent-error.js';
import { loadDocuments } from './load-documents.js';
import { unknownPlaceholders } from './prompt-template.js';

/** The agent file in every agent directory. */
export const AGENT_FILE = 'tsagent.json';

export interface LoadAgentOptions {
  /** Variables for `${VAR}` in `mcpServers` (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/**
 * Loads an agent directory: `tsagent.json`, `prompt.md`, `rules/*.mdt`, `references/*.mdt`.
 * Every problem is listed with its path in one `AgentError` (code `AGENT_INVALID`); a missing
 * directory or agent file is `AGENT_NOT_FOUND`.
 *
 * @example
 * const agent = await loadAgent('examples/agents/travel-desk');
 * agent.mode; // 'tools'
 */
export async function loadAgent(dir: string, options: LoadAgentOptions = {}): Promise<Agent> {
  const root = path.resolve(dir);
  const file = path.join(root, AGENT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new AgentError(
      'AGENT_NOT_FOUND',
      `no agent at ${root}: cannot read ${AGENT_FILE} (${errorMessage(error)}); an agent directory holds tsagent.json, prompt.md, rules/ and references/`,
      { cause: error },
    );
  }
  const issues: ConfigIssue[] = [];
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(root, [{ path: `${AGENT_FILE}`, message: `not valid JSON: ${errorMessage(error)}` }]);
  }
  const parsed = agentFileSchema.safeParse(data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      issues.push({ path: `${AGENT_FILE}: ${issue.path.join('.') || '(root)'}`, message: issue.message });
  }
  const [prompt, rules, references] = await Promise.all([
    readFile(path.join(root, 'prompt.md'), 'utf8').then(
      (body) => body.trim(),
      () => '',
    ),
    loadDocuments(root, 'rules', issues),
    loadDocuments(root, 'references', issues),
  ]);
  if (!parsed.success) throw invalid(root, issues);
  const agentFile = parsed.data;
  checkTools(agentFile, issues);
  const mcpServers = resolveServers(agentFile, root, options.env ?? process.env, issues);
  if (issues.length > 0) throw invalid(root, issues);

  const { metadata } = agentFile;
  const agent: Agent = {
    dir: root,
    name: metadata.name,
    ...(metadata.description !== undefined ? { description: metadata.description } : {}),
    version: metadata.version ?? '1.0.0',
    mode: agentMode(agentFile),
    metadata,
    settings: agentFile.settings ?? {},
    tools: metadata.tools ?? [],
    skills: metadata.skills ?? [],
    prompt,
    rules,
    references,
    mcpServers,
    providers: {},
  };
  // Keys stay out of JSON.stringify, util.inspect and object spreads of the agent.
  Object.defineProperty(agent, 'providers', { value: agentFile.providers ?? {}, enumerable: false });
  return agent;
}

/** Tools mode when `metadata.tools` is an array, Autonomous when `metadata.skills` is truthy, else Interactive. */
function agentMode(file: AgentFile): AgentMode {
  if (Array.isArray(file.metadata.tools)) return 'tools';
  if (file.metadata.skills) return 'autonomous';
  return 'interactive';
}

/**
 * Every problem of an agent file's data that `loadAgent` would report (schema, duplicate tool names,
 * required parameters that are not declared, placeholders that name nothing), with paths such as
 * `tsagent.json: metadata.tools.0.prompt`. Empty when the data would load. For editors that check an
 * unsaved file with the loader's own rules.
 */
export function checkAgentFile(data: unknown): ConfigIssue[] {
  const parsed = agentFileSchema.safeParse(data);
  if (!parsed.success)
    return parsed.error.issues.map((issue) => ({ path: `${AGENT_FILE}: ${issue.path.join('.') || '(root)'}`, message: issue.message }));
  const issues: ConfigIssue[] = [];
  checkTools(parsed.data, issues);
  return issues;
}

function checkTools(file: AgentFile, issues: ConfigIssue[]): void {
  const seen = new Map<string, number>();
  for (const [index, tool] of (file.metadata.tools ?? []).entries()) {
    const at = `${AGENT_FILE}: metadata.tools.${index}`;
    const first = seen.get(tool.name);
    if (first !== undefined)
      issues.push({
        path: `${at}.name`,
        message: `tool "${tool.name}" is defined twice (also metadata.tools.${first}); tool names must be unique`,
      });
    else seen.set(tool.name, index);
    const properties = tool.parameters.properties ?? {};
    for (const [position, required] of (tool.parameters.required ?? []).entries()) {
      if (!Object.hasOwn(properties, required))
        issues.push({
          path: `${at}.parameters.required.${position}`,
          message: `"${required}" is required but not in parameters.properties`,
        });
    }
    for (const key of unknownPlaceholders(tool)) {
      const known = Object.keys(properties);
      issues.push({
        path: `${at}.prompt`,
        message: `tool "${tool.name}": placeholder {${key}} names no parameter (parameters: ${known.length ? known.join(', ') : 'none'}; also {name}, {tool.name}, {tool.description}); write {{${key}}} for a literal`,
      });
    }
  }
}

function resolveServers(
  file: AgentFile,
  root: string,
  env: Record<string, string | undefined>,
  issues: ConfigIssue[],
): Record<string, McpServerConfig> {
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(file.mcpServers ?? {})) {
    if (server.disabled) continue;
    const found: ConfigIssue[] = [];
    const expanded = expandEnvDeep(server, env, `mcpServers.${name}`, found);
    for (const issue of found) issues.push({ path: `${AGENT_FILE}: ${issue.path}`, message: issue.message });
    servers[name] = isStdioServer(expanded) ? { ...expanded, cwd: path.resolve(root, expanded.cwd ?? '.') } : expanded;
  }
  return servers;
}

function invalid(root: string, issues: ConfigIssue[]): AgentError {
  const list = issues.map((issue) => `  - ${issue.path}: ${issue.message}`).join('\n');
  return new AgentError(
    'AGENT_INVALID',
    `invalid agent directory ${root} (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${list}`,
    { issues },
  );
}

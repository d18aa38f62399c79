import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { importTypeScript, modelSchema, resolveAgentEntry, unwrapDefault } from '../../config/index.js';
import { errorMessage } from '../../core/index.js';
import { AgentError } from '../agent-error.js';
import { AGENT_FILE } from '../load-agent.js';

/** What `agents serve` needs: the agents, where sessions live, and a fallback model. */
export interface OrchestrationConfig {
  /** Agent directories (absolute) and A2A URLs. */
  agents: string[];
  /** Default `<config folder>/.agent-spaces/sessions`. */
  sessionsDir: string;
  model?: z.output<typeof modelSchema>;
  /** The config file, when there was one. */
  file?: string;
}

// Only the keys orchestration reads: the rest of an agent-spaces config is the space's business.
const schema = z.looseObject({
  agents: z.array(z.string().min(1)).min(1, 'list at least one agent directory or A2A URL'),
  sessionsDir: z.string().optional(),
  model: modelSchema.optional(),
});

/**
 * Reads the orchestration setup from `inputs`: one config file (JSON, or an agent-spaces config module
 * whose default export has `agents: [...]`), or agent directories and A2A URLs given directly.
 */
export async function loadOrchestrationConfig(inputs: string[], cwd = process.cwd()): Promise<OrchestrationConfig> {
  const direct = inputs.every((input) => /^(https?|file):\/\//i.test(input) || isAgentDir(path.resolve(cwd, input)));
  if (direct && inputs.length > 0) {
    return { agents: inputs.map((input) => resolveAgentEntry(input, cwd)), sessionsDir: path.join(cwd, '.agent-spaces', 'sessions') };
  }
  if (inputs.length !== 1)
    throw new AgentError(
      'ORCHESTRATION_CONFIG',
      `agents serve takes one config file, or agent directories and A2A URLs (got ${inputs.length ? inputs.join(' ') : 'nothing'})`,
    );
  const file = path.resolve(cwd, inputs[0] ?? '');
  let raw: unknown;
  try {
    if (file.endsWith('.json')) raw = JSON.parse(await readFile(file, 'utf8'));
    else {
      const module = (await importTypeScript(file)) as { default?: unknown };
      raw = unwrapDefault(module.default ?? module);
    }
  } catch (error) {
    throw new AgentError('ORCHESTRATION_CONFIG', `cannot read the orchestration config ${file}: ${errorMessage(error)}`, { cause: error });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || '(root)', message: issue.message }));
    throw new AgentError(
      'ORCHESTRATION_CONFIG',
      `invalid orchestration config ${file}:\n${issues.map((i) => `  - ${i.path}: ${i.message}`).join('\n')}`,
      { issues },
    );
  }
  const root = path.dirname(file);
  return {
    agents: parsed.data.agents.map((entry) => resolveAgentEntry(entry, root)),
    sessionsDir: path.resolve(root, parsed.data.sessionsDir ?? path.join('.agent-spaces', 'sessions')),
    ...(parsed.data.model ? { model: parsed.data.model } : {}),
    file,
  };
}

function isAgentDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory() && existsSync(path.join(dir, AGENT_FILE));
  } catch {
    return false;
  }
}

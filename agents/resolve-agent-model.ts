import { expandEnvString } from '../config/index.js';
import type { ConfigIssue } from '../core/index.js';
import type { Agent } from './agent.js';
import { AgentError } from './agent-error.js';

/** The OpenAI-compatible endpoint a session talks to. */
export interface AgentModel {
  baseURL?: string;
  model?: string;
  apiKey?: string;
}

/** OpenAI-compatible endpoints of the seed's providers (bedrock has none). */
const PROVIDER_URLS: Record<string, string> = {
  gemini: 'https://generativelanguage.googleapis.com/v1beta/openai/',
  anthropic: 'https://api.anthropic.com/v1/',
};

/**
 * The model of an agent: the provider and model of `settings.mostRecentModel` (`provider:model`, with
 * `${VAR}`s; the only provider when there is one), that provider's key and URL (`${VAR}`s expanded here,
 * only for the provider in use), then `fallback` for whatever is still unset. Keys never appear in errors.
 *
 * Providers: `openai` (`OPENAI_API_KEY`, optional `OPENAI_BASE_URL`), `ollama` (`OLLAMA_HOST`),
 * `gemini` (`GOOGLE_API_KEY`), `anthropic` (`ANTHROPIC_API_KEY`), and any other name with `BASE_URL` /
 * `API_KEY` (or `<X>_BASE_URL` / `<X>_API_KEY`) entries — an OpenAI-compatible gateway.
 */
export function resolveAgentModel(
  agent: Agent,
  fallback: AgentModel = {},
  env: Record<string, string | undefined> = process.env,
): AgentModel {
  const issues: ConfigIssue[] = [];
  const written = agent.settings.mostRecentModel;
  const selected = written === undefined ? undefined : expandEnvString(written, env, 'settings.mostRecentModel', issues);
  const colon = selected?.indexOf(':') ?? -1;
  const configured = Object.keys(agent.providers);
  const provider = selected && colon > 0 ? selected.slice(0, colon) : configured.length === 1 ? configured[0] : undefined;
  const modelId = selected ? (colon > 0 ? selected.slice(colon + 1) : selected) : undefined;
  const own: AgentModel = { ...(modelId ? { model: modelId } : {}) };
  const entries = provider ? agent.providers[provider] : undefined;
  if (provider && entries) {
    if (provider === 'bedrock') {
      throw new AgentError(
        'AGENT_MODEL_UNSUPPORTED',
        `agent "${agent.name}": provider "bedrock" has no OpenAI-compatible endpoint; choose another provider in settings.mostRecentModel (e.g. "openai:<model>") or a gateway with BASE_URL`,
      );
    }
    const value = (key: string) => {
      const raw = entries[key];
      return raw === undefined ? undefined : expandEnvString(raw, env, `providers.${provider}.${key}`, issues) || undefined;
    };
    const byEnding = (ending: string) => Object.keys(entries).find((key) => key === ending || key.endsWith(`_${ending}`));
    const keyName = byEnding('API_KEY');
    const urlName = byEnding('BASE_URL');
    const apiKey = keyName ? value(keyName) : undefined;
    let baseURL = urlName ? value(urlName) : undefined;
    if (provider === 'ollama') {
      const host = value('OLLAMA_HOST') ?? 'http://127.0.0.1:11434';
      baseURL ??= `${host.replace(/\/+$/, '')}/v1`;
      own.apiKey = apiKey ?? 'ollama';
    } else if (apiKey) own.apiKey = apiKey;
    baseURL ??= PROVIDER_URLS[provider];
    if (baseURL) own.baseURL = baseURL;
  }
  if (issues.length > 0) {
    throw new AgentError(
      'AGENT_MODEL_INVALID',
      `agent "${agent.name}": ${issues.map((issue) => `tsagent.json: ${issue.path}: ${issue.message}`).join('; ')}`,
      { issues },
    );
  }
  return { ...fallback, ...own };
}

import { OPENAI_BASE_URL, type ModelSettings } from '../planner/index.js';
import type { DurableTaskRequest } from '../store/internals.js';

/** What a worker sends as the key to an endpoint a submitter named (the model client's own placeholder). */
const NO_KEY = 'no-key';

/**
 * The model a worker calls for a submitted planner task. The submitter may name the model and an
 * endpoint (`task --store --base-url`, submitTask's `model.baseURL`), but the worker's key — its
 * config's, or $OPENAI_API_KEY — goes only to the worker's own endpoint (its config's, else
 * $AGENT_SPACES_BASE_URL, else OpenAI's): an endpoint the submitter names is called with no key, so
 * whoever can submit to the store cannot have the workers send their key to a server of his (a local
 * server that needs no key still works).
 */
export function taskModel(
  requested: DurableTaskRequest['model'],
  config: ModelSettings,
  env: Record<string, string | undefined> = process.env,
): ModelSettings | undefined {
  if (requested?.baseURL === undefined) return requested;
  const own = config.baseURL ?? nonEmpty(env.AGENT_SPACES_BASE_URL) ?? OPENAI_BASE_URL;
  // A placeholder key, not an absent one: absent, the planner would take the worker's from its config or
  // environment (and the OpenAI client refuses an empty one). It is what the model client sends without a key.
  return sameEndpoint(requested.baseURL, own) ? requested : { ...requested, apiKey: NO_KEY };
}

/** Whether two base URLs name one endpoint (`http://h/v1` and `http://h/v1/` do). */
function sameEndpoint(a: string, b: string): boolean {
  const normalized = (url: string): string => {
    try {
      return new URL(url).href.replace(/\/+$/, '');
    } catch {
      return url;
    }
  };
  return normalized(a) === normalized(b);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

import { ConfigError } from '../core/index.js';
import { DEFAULT_PRICES, type PriceTable } from './prices.js';

/** How to reach the model: any OpenAI-compatible chat-completions endpoint. */
export interface ModelSettings {
  /** e.g. `http://localhost:11434/v1` (Ollama), `http://localhost:8000/v1` (vLLM). Default: OpenAI. */
  baseURL?: string;
  model?: string;
  apiKey?: string;
  /** Extra or overriding prices, US dollars per million tokens. */
  prices?: PriceTable;
}

export interface ResolvedModelSettings {
  baseURL: string;
  model: string;
  /** Undefined for a local endpoint that needs none. */
  apiKey: string | undefined;
  prices: PriceTable;
}

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MODEL = 'gpt-4.1-mini';

/**
 * Settings from, in order: the call's options, the config's `model`, then the environment
 * (`OPENAI_API_KEY`, `AGENT_SPACES_BASE_URL`, `AGENT_SPACES_MODEL`). A key is required for OpenAI's own
 * endpoint (the default); with any other base URL it is optional, because local servers (Ollama, vLLM,
 * llama.cpp) need none. Throws a `ConfigError` saying what to set when the key is missing.
 */
export function resolveModelSettings(
  options: ModelSettings = {},
  config: ModelSettings = {},
  env: Record<string, string | undefined> = process.env,
): ResolvedModelSettings {
  const baseURL = options.baseURL ?? config.baseURL ?? nonEmpty(env.AGENT_SPACES_BASE_URL) ?? OPENAI_BASE_URL;
  const apiKey = options.apiKey ?? config.apiKey ?? nonEmpty(env.OPENAI_API_KEY);
  const model = options.model ?? config.model ?? nonEmpty(env.AGENT_SPACES_MODEL) ?? DEFAULT_MODEL;
  if (apiKey === undefined && isOpenAI(baseURL)) {
    throw new ConfigError(
      `no API key for the model endpoint ${baseURL}: set OPENAI_API_KEY (or model.apiKey in the config), or point AGENT_SPACES_BASE_URL (or model.baseURL in the config; 'agent-spaces task' also takes --base-url) at an OpenAI-compatible server such as Ollama (http://localhost:11434/v1)`,
      [{ path: 'model.apiKey', message: 'missing' }],
    );
  }
  return { baseURL, model, apiKey, prices: resolvePrices(options, config) };
}

/** The price table: defaults, then the config's `model.prices`, then the call's. */
export function resolvePrices(options: ModelSettings = {}, config: ModelSettings = {}): PriceTable {
  return { ...DEFAULT_PRICES, ...config.prices, ...options.prices };
}

function isOpenAI(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

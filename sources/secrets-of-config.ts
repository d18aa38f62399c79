import type { ResolvedConfig } from '../config/index.js';
import { secretsOfHeaders, secretsOfUrl, type Secret } from '../core/index.js';
import type { CapabilitySource } from './capability-source.js';

/**
 * Every secret a space's host holds, labelled, for the one redactor: what each of `sources` declares
 * (`CapabilitySource.secrets`), the model's API key (from the config and `OPENAI_API_KEY`) and the
 * store URL's credentials, and the telemetry exporter's headers and endpoint credentials.
 */
export function collectSecrets(
  config: ResolvedConfig,
  sources: readonly Pick<CapabilitySource, 'secrets'>[],
  env: Record<string, string | undefined> = process.env,
): Secret[] {
  const secrets = sources.flatMap((source) => source.secrets(config));
  secrets.push(...secretsOfModel(config.model.apiKey, env));
  if (config.store !== undefined) secrets.push(...secretsOfUrl(config.store, 'store URL'));
  const otlp = config.telemetry?.otlp;
  if (otlp !== undefined) secrets.push(...secretsOfHeaders(otlp.headers), ...secretsOfUrl(otlp.endpoint, 'OTLP endpoint'));
  return secrets;
}

/** A model API key (configured, or `OPENAI_API_KEY` from `env`). */
export function secretsOfModel(apiKey: string | undefined, env: Record<string, string | undefined> = process.env): Secret[] {
  const secrets: Secret[] = [];
  if (apiKey !== undefined && apiKey.length >= 4) secrets.push({ value: apiKey, label: 'model API key', strength: 'strong' });
  const fromEnv = env.OPENAI_API_KEY;
  if (fromEnv !== undefined && fromEnv.length >= 4 && fromEnv !== apiKey)
    secrets.push({ value: fromEnv, label: 'env OPENAI_API_KEY', strength: 'strong' });
  return secrets;
}

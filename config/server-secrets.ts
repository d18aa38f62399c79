import type { ResolvedConfig } from './schema.js';

/**
 * The values of configured MCP servers' `env` and `headers` (API keys, tokens): cut out of events,
 * errors, prompts and traces wherever they would appear. Short values are left alone, since cutting
 * them would mangle ordinary text.
 */
export function serverSecrets(config: Pick<ResolvedConfig, 'mcpServers'>): string[] {
  const values: string[] = [];
  for (const server of Object.values(config.mcpServers)) {
    const map = 'env' in server ? server.env : 'headers' in server ? server.headers : undefined;
    for (const value of Object.values(map ?? {})) if (value.length >= 6) values.push(value);
  }
  return values;
}

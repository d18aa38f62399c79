import type { ResolvedConfig } from '../config/index.js';
import { resolveStoreUrl } from '../store/index.js';

/**
 * The durable runs' store a command uses: `--store`, else the config's `store`, else
 * `$AGENT_SPACES_STORE`; undefined when none is set. A URL that is not PostgreSQL is a `ConfigError`.
 */
export function storeOf(option: string | undefined, config: Pick<ResolvedConfig, 'store'>): string | undefined {
  return resolveStoreUrl({ ...(option ? { option } : {}), ...(config.store ? { config: config.store } : {}) });
}

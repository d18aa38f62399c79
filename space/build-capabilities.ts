import * as compiler from '../compiler/index.js';
import type { ResolvedConfig } from '../config/index.js';
import { configuredSources, type CapabilitySource } from '../sources/index.js';
import { defaultSources } from './default-sources.js';

// The compiler takes the sources it compiles; these are the package's entry points, which default
// them to the config's (`defaultSources`), so `buildCapabilities({ config })` builds a space's tools.

/**
 * Compiles every capability source of a space into `outDir`: declarations, proxies, schemas,
 * catalog. `sources` default to `defaultSources(config)`, building JSON tools without an
 * implementation too (the caller may bring backends for any module). See the compiler's
 * `buildCapabilities` for what is written and kept.
 */
export function buildCapabilities(options: compiler.BuildOptions): Promise<compiler.BuildResult> {
  return compiler.buildCapabilities({
    ...options,
    sources: options.sources ?? defaultSources(options.config, { requireImplementations: false }),
  });
}

/**
 * Whether the build output of `config` is stale (see the compiler's `isBuildStale`): `sources` default
 * to the config's tool files and OpenAPI services (`configuredSources`; std and agents read no files).
 */
export function isBuildStale(config: ResolvedConfig, sources: readonly CapabilitySource[] = configuredSources()): Promise<boolean> {
  return compiler.isBuildStale(config, sources);
}

import { sourceLabel, type CapabilitySpec, type CompileWarning } from '../../core/index.js';
import type { Backend } from '../../core/index.js';
import type { CapabilitySource, ConnectContext, DiscoverContext, Discovery } from '../capability-source.js';
import { discoverApi, openApiSpecFiles } from './discover-api.js';
import { secretsOfApi } from './api-secrets.js';
import { createOpenApiBackend } from './openapi-backend.js';

declare module '../../core/manifest.js' {
  interface CapabilityOrigins {
    /** An OpenAPI service of the config (`openapi.<api>`). */
    openapi: { api: string };
  }
}

/**
 * The OpenAPI services of the config (`openapi`) as a capability source: each API is one unit of
 * discovery (`openapi:<api>`, one module `openapi-<api>` with a typed function per operation), and
 * one backend performs the calls of every API over HTTP.
 */
export function createOpenApiSource(): CapabilitySource {
  return {
    kind: 'openapi',
    async discover(context: DiscoverContext): Promise<Discovery> {
      const apis = Object.entries(context.config.openapi ?? {}).sort(([a], [b]) => a.localeCompare(b));
      const warnings: CompileWarning[] = [];
      const loaded = await Promise.all(
        apis.map(([api, config]) =>
          context.load(`openapi:${api}`, async () => {
            const discovered = await discoverApi(api, config, context.signal);
            warnings.push(...discovered.warnings);
            return [discovered.capability];
          }),
        ),
      );
      return { capabilities: loaded.flatMap((capabilities) => capabilities ?? []), failures: [], warnings };
    },
    connect(_specs: readonly CapabilitySpec[], context: ConnectContext): Promise<Backend> {
      return Promise.resolve(createOpenApiBackend({ apis: context.config.openapi ?? {} }));
    },
    // `openapi:<api>`, the label its units are loaded under, so a failed API keeps its previous module.
    describe: sourceLabel,
    secrets: (config) => Object.values(config.openapi ?? {}).flatMap(secretsOfApi),
    // The specs that are local files; a spec fetched from a URL is read again by the next build.
    inputFiles: async (config) => openApiSpecFiles(config.openapi),
    callers: (origin, config) => (origin.kind === 'openapi' ? config.openapi?.[origin.api]?.callers : undefined),
  };
}

/**
 * The OpenAPI source.
 * @deprecated use `createOpenApiSource()`.
 */
export const openapiSource: CapabilitySource = createOpenApiSource();

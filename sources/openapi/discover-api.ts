import type { OpenApiConfig } from '../../config/index.js';
import { secretsOfApi } from './api-secrets.js';
import { withoutSecrets } from '../map-strings.js';
import { toModuleName, type CompileWarning, type RawCapability } from '../../core/index.js';
import { describeOperations } from './describe-operations.js';
import { isJsonObject } from './json-walk.js';
import { loadSpec } from './load-spec.js';

/** Default module name of an API: `openapi-<api>` in kebab-case. */
export function openApiModuleName(api: string, config: OpenApiConfig): string {
  return config.module ?? `openapi-${toModuleName(api)}`;
}

/** The specs of `config.openapi` that are local files (absolute paths): a change to one makes a build stale. */
export function openApiSpecFiles(apis: Record<string, OpenApiConfig> | undefined): string[] {
  return Object.values(apis ?? {})
    .map((api) => api.spec)
    .filter((spec) => !/^https?:\/\//i.test(spec));
}

/**
 * Reads, validates and dereferences one configured API's spec and describes its operations as one
 * raw capability (module `openapi-<api>`). The configured header values are cut out of everything
 * it returns: a spec that quotes them must not put them into declarations, the catalog or messages.
 */
export async function discoverApi(
  api: string,
  config: OpenApiConfig,
  signal?: AbortSignal,
): Promise<{ capability: RawCapability; warnings: CompileWarning[] }> {
  const spec = await loadSpec(api, config, signal);
  const { functions, warnings } = describeOperations(api, config, spec);
  const info = isJsonObject(spec.document.info) ? spec.document.info : {};
  const title = typeof info.title === 'string' ? info.title : api;
  const capability: RawCapability = {
    name: api,
    module: openApiModuleName(api, config),
    description: `OpenAPI service ${title}${typeof info.description === 'string' && info.description.trim() !== '' ? `: ${firstParagraph(info.description)}` : ''}`,
    ...(typeof info.version === 'string' ? { version: info.version } : {}),
    source: { kind: 'openapi', api },
    config: config.rateLimit ? { rateLimit: config.rateLimit } : {},
    functions,
  };
  // Keys too: a property may be named after a secret.
  return withoutSecrets({ capability, warnings }, secretsOfApi(config), { keys: true });
}

function firstParagraph(text: string): string {
  return (
    text
      .trim()
      .split(/\n\s*\n/)[0]
      ?.trim() ?? ''
  );
}

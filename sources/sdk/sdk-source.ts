import path from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { sourceLabel, type Backend, type CapabilitySpec, type CompileWarning } from '../../core/index.js';
import type { CapabilitySource, ConnectContext, DiscoverContext, Discovery } from '../capability-source.js';
import { readSdk } from './read-sdk.js';
import { createSdkBackend } from './sdk-backend.js';
import { secretsOfSdk } from './sdk-secrets.js';

declare module '../../core/manifest.js' {
  interface CapabilityOrigins {
    /** A TypeScript SDK of the config (`sdks.<sdk>`). */
    sdk: { sdk: string };
  }
}

/**
 * The TypeScript SDKs of the config (`sdks`) as a capability source: each SDK is one unit of
 * discovery (`sdk:<name>`, one module `@capabilities/<name>` whose functions and schemas come from
 * the SDK's own declarations), and one backend performs the calls of every SDK on the host.
 */
export function createSdkSource(): CapabilitySource {
  return {
    kind: 'sdk',
    async discover(context: DiscoverContext): Promise<Discovery> {
      const sdks = Object.entries(context.config.sdks ?? {}).sort(([a], [b]) => a.localeCompare(b));
      const warnings: CompileWarning[] = [];
      const loaded = await Promise.all(
        sdks.map(([name, sdk]) =>
          context.load(`sdk:${name}`, async () => {
            const reading = await readSdk(name, sdk, context.config.root);
            warnings.push(...reading.warnings);
            return [reading.capability];
          }),
        ),
      );
      return { capabilities: loaded.flatMap((capabilities) => capabilities ?? []), failures: [], warnings };
    },
    connect(_specs: readonly CapabilitySpec[], context: ConnectContext): Promise<Backend> {
      return Promise.resolve(createSdkBackend(context.config.sdks ?? {}, context.config.root));
    },
    // `sdk:<name>`, the label its unit is loaded under, so a failed SDK keeps its previous module.
    describe: sourceLabel,
    title: (origin) => (origin.kind === 'sdk' ? `TypeScript SDK "${origin.sdk}"` : sourceLabel(origin)),
    secrets: (config) => Object.entries(config.sdks ?? {}).flatMap(([name, sdk]) => secretsOfSdk(name, sdk)),
    // A local SDK's sources: editing them makes the build stale. Installed packages change with the lock file.
    inputFiles: async (config) => {
      const files = await Promise.all(
        Object.values(config.sdks ?? {}).map((sdk) => (sdk.module === undefined ? [] : localFiles(path.resolve(config.root, sdk.module)))),
      );
      return files.flat();
    },
    callers: (origin, config) => (origin.kind === 'sdk' ? config.sdks?.[origin.sdk]?.callers : undefined),
  };
}

/** The `.ts`/`.js` files of a local SDK (a file, or a folder without its node_modules), at most 500. */
async function localFiles(target: string): Promise<string[]> {
  const candidates = [target, ...['.ts', '.mts', '.js', '.mjs'].map((extension) => target + extension)];
  const file = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  if (file !== undefined) return [file];
  if (!existsSync(target)) return [];
  const entries = await readdir(target, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(m?ts|m?js|json)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((entry) => !entry.split(path.sep).includes('node_modules'))
    .sort()
    .slice(0, 500);
}

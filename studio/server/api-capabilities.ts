import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { formatSignature } from '../../compiler/index.js';
import { BUILD_LAYOUT } from '../../core/index.js';
import { searchTools, STD_SOURCE_KIND, type DetailLevel } from '../../space/index.js';
import type { BuildSummary, StudioContext } from './studio-context.js';
import { StudioError } from './studio-error.js';
import type { BuildView, CapabilitiesView } from './wire-types.js';

/** Every module with its functions, declarations, schemas and flags, and what the last build reported. */
export async function listCapabilities(context: StudioContext): Promise<CapabilitiesView> {
  const build = context.lastBuild ?? (await context.build());
  const specs = await context.space.capabilities();
  const modules = await Promise.all(
    specs.map(async (spec) => ({
      module: spec.module,
      namespace: spec.namespace,
      description: spec.description ?? '',
      source: spec.source,
      title: context.space.titleOf(spec.source),
      own: spec.source.kind !== STD_SOURCE_KIND,
      config: spec.config,
      declarations: await readDeclarations(context, spec.module),
      functions: spec.functions.map((fn) => ({
        id: `${spec.module}.${fn.name}`,
        name: fn.name,
        toolName: fn.toolName,
        description: fn.description ?? '',
        signature: formatSignature(fn, spec),
        inputSchema: fn.inputSchema,
        ...(fn.outputSchema ? { outputSchema: fn.outputSchema } : {}),
        requiresApproval: Boolean(fn.requiresApproval || spec.config.requiresApproval),
        ...(spec.config.rateLimit ? { rateLimit: spec.config.rateLimit } : {}),
        ...(fn.annotations ? { annotations: fn.annotations } : {}),
      })),
    })),
  );
  return { root: context.config.root, outDir: context.config.outDir, build: summarize(build), modules };
}

/** Rebuilds every source (progress goes out as `build-progress` events while it runs). */
export async function rebuild(context: StudioContext, force: boolean): Promise<unknown> {
  return summarize(await context.build(force));
}

/** The planner's `search_tools`, over the same catalog. */
export async function search(context: StudioContext, query: string, detail: string): Promise<unknown> {
  if (detail !== 'names' && detail !== 'summary' && detail !== 'full')
    throw new StudioError('STUDIO_BAD_REQUEST', `detail must be names, summary or full (got "${detail}")`);
  return searchTools(await context.space.catalog(), query, { detailLevel: detail as DetailLevel, limit: 50 });
}

function summarize(build: BuildSummary): BuildView {
  return { ...build, sources: build.sources.map((source) => ({ ...source })) };
}

async function readDeclarations(context: StudioContext, module: string): Promise<string> {
  const file = path.join(context.config.outDir, BUILD_LAYOUT.capabilitiesDir, module, BUILD_LAYOUT.moduleFiles.declarations);
  return readFile(file, 'utf8').catch(() => '');
}

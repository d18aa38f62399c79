import type { ResolvedConfig } from '../config/index.js';
import { ToolCallError, sourceOfKind, type Backend, type CapabilitySpec } from '../core/index.js';
import type { CapabilitySource } from '../sources/index.js';

/**
 * The backends performing the calls of a built space: each source connects the built modules of its
 * kinds (a source with no built module is not connected). A module whose kind no given source
 * produces (built by a space that had more sources, e.g. `openSpace`'s agents) fails its calls, saying so.
 */
export async function connectSources(
  sources: readonly CapabilitySource[],
  specs: readonly CapabilitySpec[],
  config: ResolvedConfig,
): Promise<{ backends: Record<string, Backend>; close: () => Promise<void> }> {
  const specsBySource = new Map<CapabilitySource, CapabilitySpec[]>();
  const orphans: CapabilitySpec[] = [];
  for (const spec of specs) {
    const source = sourceOfKind(sources, spec.source.kind);
    if (source) specsBySource.set(source, [...(specsBySource.get(source) ?? []), spec]);
    else orphans.push(spec);
  }
  const connected = await Promise.allSettled(
    [...specsBySource].map(async ([source, ownSpecs]) => ({ backend: await source.connect(ownSpecs, { config }), specs: ownSpecs })),
  );
  const backendsConnected = connected.flatMap((result) => (result.status === 'fulfilled' ? [result.value.backend] : []));
  const close = async (): Promise<void> => void (await Promise.allSettled(backendsConnected.map((backend) => backend.close())));
  const failed = connected.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await close(); // one source that cannot connect fails the start; the others stop again
    throw failed.reason;
  }
  const backends: Record<string, Backend> = {};
  for (const result of connected) {
    if (result.status !== 'fulfilled') continue;
    for (const spec of result.value.specs) backends[spec.module] = result.value.backend;
  }
  for (const spec of orphans) backends[spec.module] = NO_SOURCE;
  return { backends, close };
}

/** The backend of a built module whose kind of source this space was not given. */
const NO_SOURCE: Backend = {
  call: async (call) => {
    const kind = call.capability.source.kind;
    throw new ToolCallError(
      'SERVER_UNAVAILABLE',
      `@capabilities/${call.capability.module} comes from a source of kind "${kind}" this space was not given: open it with that source (openSpace adds the config's agents) or rebuild the capabilities`,
      { capability: call.capability.module, function: call.function.name },
    );
  },
  close: async () => undefined,
};

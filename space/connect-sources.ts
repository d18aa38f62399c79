import type { ResolvedConfig } from '../config/index.js';
import type { Backend, CapabilitySpec } from '../core/index.js';
import { sourceOfKind, type CapabilitySourceKind } from '../sources/index.js';

/**
 * The backends performing the calls of a built space: each source connects the built modules of its
 * kinds (a source with no built module is not connected). A module whose kind no given source
 * produces has no backend; the bridge refuses its calls, naming it.
 */
export async function connectSources(
  sources: readonly CapabilitySourceKind[],
  specs: readonly CapabilitySpec[],
  config: ResolvedConfig,
): Promise<{ backends: Record<string, Backend>; close: () => Promise<void> }> {
  const specsBySource = new Map<CapabilitySourceKind, CapabilitySpec[]>();
  for (const spec of specs) {
    const source = sourceOfKind(sources, spec.source.kind);
    if (source) specsBySource.set(source, [...(specsBySource.get(source) ?? []), spec]);
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
  return { backends, close };
}

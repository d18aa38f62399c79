import type { CapabilitySpec } from '../core/index.js';
import { formatSignature } from './signature.js';

/** One function in `catalog.json`, the compact index that search_tools ranks. */
export interface CatalogEntry {
  /** `<module>.<function>`, the name a direct call uses. */
  id: string;
  module: string;
  namespace: string;
  function: string;
  toolName: string;
  signature: string;
  description: string;
  parameters: string[];
  requiresApproval: boolean;
  /** Who may call it, when not both: `code` (programs only) or `direct` (direct calls only). */
  callers?: 'code' | 'direct';
  /** Part of the standard library (std, task storage), not of the space's own sources: ranked after them. */
  standard?: true;
}

export interface Catalog {
  version: 1;
  modules: { module: string; namespace: string; description: string; functions: number; standard?: true }[];
  functions: CatalogEntry[];
}

export function buildCatalog(specs: CapabilitySpec[]): Catalog {
  return {
    version: 1,
    modules: specs.map((spec) => ({
      module: spec.module,
      namespace: spec.namespace,
      description: spec.description ?? '',
      functions: spec.functions.length,
      ...standard(spec),
    })),
    functions: specs.flatMap((spec) =>
      spec.functions.map((fn) => ({
        id: `${spec.module}.${fn.name}`,
        module: spec.module,
        namespace: spec.namespace,
        function: fn.name,
        toolName: fn.toolName,
        signature: formatSignature(fn, spec),
        description: fn.description ?? '',
        parameters: Object.keys((fn.inputSchema.properties as Record<string, unknown> | undefined) ?? {}),
        requiresApproval: Boolean(fn.requiresApproval || spec.config.requiresApproval),
        ...(fn.callers === 'code' || fn.callers === 'direct' ? { callers: fn.callers } : {}),
        ...standard(spec),
      })),
    ),
  };
}

function standard(spec: CapabilitySpec): { standard?: true } {
  return spec.source.kind === 'std' ? { standard: true } : {};
}

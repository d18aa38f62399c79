import { createInProcessBackend } from '../core/index.js';
import type { Backend, CapabilityOrigin, RawCapability, ToolDefinition } from '../core/index.js';
import type { DiscoverContext, Discovery } from './capability-source.js';
import { toolDefinitionToRaw } from './files/tool-definition.js';

/** A `defineTool` definition performed on the host (std, agents), with the module and source it compiles to. */
export interface HostTool {
  definition: ToolDefinition;
  module: string;
  source: CapabilityOrigin;
}

/**
 * Discovers host tools: the tools of one `label` (given by `labelOf`) are one unit, loaded (and
 * failing) together — the whole standard library is one unit, each agent another.
 */
export async function discoverHostTools(
  context: DiscoverContext,
  tools: readonly HostTool[],
  labelOf: (source: CapabilityOrigin) => string,
): Promise<Discovery> {
  const units = new Map<string, HostTool[]>();
  for (const tool of tools) {
    const label = labelOf(tool.source);
    units.set(label, [...(units.get(label) ?? []), tool]);
  }
  const loaded = await Promise.all(
    [...units].map(([label, unit]) =>
      context.load(label, async () => unit.map((tool): RawCapability => toolDefinitionToRaw(tool.definition, tool.source, tool.module))),
    ),
  );
  return { capabilities: loaded.flatMap((raws) => raws ?? []), failures: [] };
}

/** One in-process backend running the handlers of `tools`. */
export function hostToolsBackend(tools: readonly HostTool[]): Backend {
  return createInProcessBackend(Object.fromEntries(tools.map((tool) => [tool.module, tool.definition])));
}

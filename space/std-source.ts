import path from 'node:path';
import type { ResolvedConfig } from '../config/index.js';
import { sourceLabel, type ToolDefinition } from '../core/index.js';
import { discoverHostTools, hostToolsBackend, type CapabilitySource, type HostTool } from '../sources/index.js';
import { createStdTools } from '../std/index.js';

declare module '../core/manifest.js' {
  interface CapabilityOrigins {
    /** The standard library (and the space's task-storage): nothing more names it. */
    std: Record<never, never>;
  }
}

/** The module name of a standard library tool: `std-fs`, `std-http`, … */
export function stdModule(name: string): string {
  return `std-${name}`;
}

/** The folder `std.fs` works in: `std.fs.root`, else `workspace/` beside the config. */
export function stdWorkspace(config: ResolvedConfig): string {
  return config.std.fs?.root ?? path.join(config.root, 'workspace');
}

export interface StdSourceOptions {
  /** More host tools compiled as part of the standard library (the space's `task-storage`), by module. */
  extraTools?: Record<string, ToolDefinition>;
}

/**
 * The standard library (`@capabilities/std-fs`, `std-http`, `std-json`, `std-csv`, `std-crypto`,
 * `std-time`, and the aggregate `@capabilities/std`) as a capability source, set up from the config's
 * `std` section. One set of tool instances serves both the build and the calls. It lives in `space/`,
 * which may import both the `std/` tools and the host-tool helpers of `sources/`, as the agents'
 * source lives in `agents/`.
 */
/** The kind of the standard library's origins: the modules every space has, not its own. */
export const STD_SOURCE_KIND = 'std';

export function createStdSource(config: ResolvedConfig, options: StdSourceOptions = {}): CapabilitySource {
  const std = createStdTools({
    root: stdWorkspace(config),
    ...(config.std.http ? { http: config.std.http } : {}),
    ...(config.std.fs?.maxWriteBytesPerRun === undefined ? {} : { limits: { maxWriteBytesPerRun: config.std.fs.maxWriteBytesPerRun } }),
  });
  const tools: HostTool[] = [
    ...std.map((definition): HostTool => ({ definition, module: stdModule(definition.name), source: { kind: STD_SOURCE_KIND } })),
    ...Object.entries(options.extraTools ?? {}).map(([module, definition]): HostTool => ({
      definition,
      module,
      source: { kind: STD_SOURCE_KIND },
    })),
  ];
  return {
    kind: STD_SOURCE_KIND,
    discover: (context) => discoverHostTools(context, tools, sourceLabel),
    connect: async () => hostToolsBackend(tools),
    describe: sourceLabel,
    title: () => 'standard library',
    secrets: () => [],
  };
}

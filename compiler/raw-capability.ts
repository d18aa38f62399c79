import type { CapabilityConfig, CapabilitySource, FunctionSpec } from '../core/index.js';

/** What a source loader produces: a capability before names are normalised. */
export interface RawCapability {
  /** The source's own name: a tool's `name`, an MCP server's key. */
  name: string;
  /** Module name when the source fixes it (`mcp-<server>`, `std-fs`); otherwise derived from `name`. */
  module?: string;
  description?: string;
  version?: string;
  source: CapabilitySource;
  config: CapabilityConfig;
  functions: RawFunction[];
}

/** A function before its JavaScript name is chosen. */
export type RawFunction = Omit<FunctionSpec, 'name'>;

/** A source that could not be loaded; the build reports it and keeps its previous output. */
export interface SourceFailure {
  source: string;
  message: string;
}

/** A readable name for a source, as used in progress lines and warnings. */
export function describeSource(source: CapabilitySource): string {
  switch (source.kind) {
    case 'json':
    case 'typescript':
    case 'agent':
      return source.path;
    case 'mcp':
      return `mcp:${source.server}`;
    case 'openapi':
      return `openapi:${source.api}`;
    case 'std':
      return 'std';
  }
}

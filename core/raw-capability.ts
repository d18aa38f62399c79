import type { CapabilityConfig, CapabilityOrigin, FunctionSpec } from './manifest.js';

/** What a capability source discovers: a capability before names are normalised. */
export interface RawCapability {
  /** The source's own name: a tool's `name`, an MCP server's key. */
  name: string;
  /** Module name when the source fixes it (`mcp-<server>`, `std-fs`); otherwise derived from `name`. */
  module?: string;
  description?: string;
  version?: string;
  source: CapabilityOrigin;
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

/**
 * A readable name for a source entry that needs no knowledge of its kind: its `path` when it has one
 * (tool files, agent directories), else the kind and its names (`mcp:github`, `openapi:petstore`, `std`).
 * A source kind may describe its entries better (`CapabilitySource.describe`).
 */
export function sourceLabel(source: CapabilityOrigin): string {
  if ('path' in source) return source.path;
  const names = Object.entries(source)
    .filter(([key, value]) => key !== 'kind' && typeof value === 'string')
    .map(([, value]) => value as string);
  return [source.kind, ...names].join(':');
}

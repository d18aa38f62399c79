import type { ResolvedConfig } from '../config/index.js';
import type { ToolDefinition } from '../core/index.js';
import { configuredSources, type CapabilitySource } from '../sources/index.js';
import { createStdSource, STD_SOURCE_KIND } from './std-source.js';
import { createSavedSource } from './saved-programs/index.js';
import { createSessionSource, SESSION_SOURCE_KIND, type SessionStateBacking } from './session-state/index.js';

export interface DefaultSourcesOptions {
  /** Host tools compiled into the standard library (the space's `task-storage`), by module. */
  stdExtraTools?: Record<string, ToolDefinition>;
  /**
   * Fail a JSON tool without an `implementation` (default true: nothing could perform its calls).
   * `false` for a caller of the compiler alone, who may bring backends for any module.
   */
  requireImplementations?: boolean;
  /** Where `@capabilities/session` keeps its state (default: memory). */
  sessionState?: SessionStateBacking;
}

/**
 * The capability sources a config names: the kinds `sources/` holds (`configuredSources`: tool files,
 * MCP servers, OpenAPI services) and the standard library (`std`). A new kind is added in
 * `sources/index.ts`, not here.
 */
export function defaultSources(config: ResolvedConfig, options: DefaultSourcesOptions = {}): CapabilitySource[] {
  return [
    ...configuredSources(options.requireImplementations === undefined ? {} : { requireImplementations: options.requireImplementations }),
    createStdSource(config, options.stdExtraTools ? { extraTools: options.stdExtraTools } : {}),
    createSavedSource(config),
    createSessionSource(config, options.sessionState ? { backing: options.sessionState } : {}),
  ];
}

/**
 * The kinds of the sources every space comes with — the standard library (with the space's
 * task-storage) and session state —, as against the space's own capabilities (its tool files, servers,
 * APIs, SDKs, saved programs): what the studio's starter program and hints call "of its own".
 */
export const BUILT_IN_SOURCE_KINDS: ReadonlySet<string> = new Set([STD_SOURCE_KIND, SESSION_SOURCE_KIND]);

import type { ResolvedConfig } from '../../config/index.js';
import { sourceLabel, type Backend, type RawCapability } from '../../core/index.js';
import type { CapabilitySource } from '../../sources/index.js';
import type { SessionLimits, SessionStateBacking } from './backing.js';
import { createMemorySessionState } from './memory-backing.js';
import { performSessionCall, SESSION_FUNCTIONS, SESSION_MODULE } from './session-tools.js';

declare module '../../core/manifest.js' {
  interface CapabilityOrigins {
    /** State between runs (`@capabilities/session`): one module every space has. */
    session: Record<never, never>;
  }
}

/** The kind of the session-state source's origin. */
export const SESSION_SOURCE_KIND = 'session';

/** The limits of one scope when the config's `session` section says nothing. */
export const DEFAULT_SESSION_LIMITS = {
  /** 1 MiB of keys and values. */
  maxBytes: 1024 * 1024,
  maxKeys: 1000,
  /** A day. */
  ttlSeconds: 24 * 60 * 60,
} as const;

/** The limits of one scope: the config's `session` section over {@link DEFAULT_SESSION_LIMITS}. */
export function sessionLimits(config: Pick<ResolvedConfig, 'session'>): SessionLimits {
  const session = config.session ?? {};
  return {
    maxBytes: session.maxBytes ?? DEFAULT_SESSION_LIMITS.maxBytes,
    maxKeys: session.maxKeys ?? DEFAULT_SESSION_LIMITS.maxKeys,
    ttlMs: (session.ttlSeconds ?? DEFAULT_SESSION_LIMITS.ttlSeconds) * 1000,
  };
}

export interface SessionSourceOptions {
  /** Where the state is kept (default: this process's memory; the store's `sessionState` with a store). */
  backing?: SessionStateBacking;
  /** The host's clock, in milliseconds (default `Date.now`): tests of expiry move it. */
  now?: () => number;
}

/**
 * `@capabilities/session` as a capability source: `get`, `set`, `remove`, `list` of small JSON values,
 * kept per scope — the `session` the host put in the run's call context (an explicit id, an MCP
 * session, a planner task, an agent session), never an argument of the program.
 */
export function createSessionSource(config: ResolvedConfig, options: SessionSourceOptions = {}): CapabilitySource {
  const backing = options.backing ?? createMemorySessionState();
  const limits = sessionLimits(config);
  const now = options.now ?? Date.now;
  const origin = { kind: SESSION_SOURCE_KIND } as const;
  const raw: RawCapability = {
    name: SESSION_MODULE,
    module: SESSION_MODULE,
    description: `State kept between runs of this session (an MCP session, a planner task, an agent session, or the session id the host gave the run): small JSON values by key, at most ${limits.maxKeys} keys and ${limits.maxBytes} bytes, each kept for ${limits.ttlMs / 1000} s after it was last set.`,
    source: origin,
    config: {},
    functions: Object.entries(SESSION_FUNCTIONS).map(([toolName, fn]) => ({
      toolName,
      description: fn.description,
      inputSchema: fn.parameters,
      outputSchema: fn.returns,
      resultKind: 'value',
    })),
  };
  const backend: Backend = {
    call: (call) => performSessionCall(call, backing, limits, now),
    close: async () => undefined,
  };
  return {
    kind: SESSION_SOURCE_KIND,
    discover: async (context) => ({ capabilities: (await context.load(SESSION_SOURCE_KIND, async () => [raw])) ?? [], failures: [] }),
    connect: async () => backend,
    describe: sourceLabel,
    title: () => 'session state',
    secrets: () => [],
  };
}

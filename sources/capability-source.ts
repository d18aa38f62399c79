import type { ResolvedConfig } from '../config/index.js';
import type * as core from '../core/index.js';

// The interface is declared in core/capability-source.ts (the compiler and space/ use it without
// importing sources/); here it is bound to the config every source of this folder reads.

/** One kind of capability source, reading a `ResolvedConfig` (see `core/capability-source.ts`). */
export type CapabilitySource = core.CapabilitySource<ResolvedConfig>;
export type DiscoverContext = core.DiscoverContext<ResolvedConfig>;
export type ConnectContext = core.ConnectContext<ResolvedConfig>;
export type { Discovery, SourceKindName } from '../core/index.js';
/** @deprecated renamed {@link CapabilitySource}. */
export type CapabilitySourceKind = CapabilitySource;

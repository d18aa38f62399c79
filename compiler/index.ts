export { buildCapabilities, COMPILER_VERSION, STD_MODULE, hashSpec } from './build-capabilities.js';
export type { BuildOptions, BuildProgressEvent, BuildResult, KeptSource, SourceReport, StoredManifest } from './build-capabilities.js';
export { readPreviousBuild } from './write-output.js';
export { buildCatalog } from './catalog.js';
export type { Catalog, CatalogEntry } from './catalog.js';
export { formatSignature } from './signature.js';
export { isBuildStale } from './is-build-stale.js';
export { toModuleName } from '../core/index.js';
// Shared with the capability sources; they live in core/ (re-exported for callers of the compiler).
export type { RawCapability, RawFunction, SourceFailure } from '../core/index.js';
export { applyInferredResults, readInferredResults } from './inferred-results.js';
export { DEFAULT_MAX_MODULE_BYTES, type SandboxModulesReport } from './sandbox-modules/index.js';

export { buildCapabilities, COMPILER_VERSION, STD_MODULE, hashSpec } from './build-capabilities.js';
export type { BuildOptions, BuildProgressEvent, BuildResult, ExtraTool, SourceReport, StoredManifest } from './build-capabilities.js';
export { buildCatalog } from './catalog.js';
export type { Catalog, CatalogEntry } from './catalog.js';
export { formatSignature } from './signature.js';
export type { McpConnector } from './sources/mcp-server.js';
export type { SourceFailure } from './raw-capability.js';
export { isBuildStale } from './is-build-stale.js';

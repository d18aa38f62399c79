export { createSpace } from './create-space.js';
export type { Space, SpaceOptions, SpaceRunOptions } from './create-space.js';
export { searchTools, tokenize } from './search-tools.js';
export { addDeclarations, MAX_DECLARATION_CHARS } from './function-declarations.js';
export { createTaskStorage, TASK_STORAGE_MAX_CHARS, TASK_STORAGE_MODULE } from './task-storage.js';
export type { StoredResult, TaskStorage } from './task-storage.js';
export type { DetailLevel, SearchToolsOptions, SearchToolsResult, ToolMatch } from './search-tools.js';
export { buildCapabilities, isBuildStale } from './build-capabilities.js';
export { BUILT_IN_SOURCE_KINDS, defaultSources } from './default-sources.js';
export type { DefaultSourcesOptions } from './default-sources.js';
export { createStdSource, STD_SOURCE_KIND, stdWorkspace } from './std-source.js';
export type { StdSourceOptions } from './std-source.js';
export {
  createMemorySessionState,
  createSessionSource,
  DEFAULT_SESSION_LIMITS,
  SESSION_MODULE,
  SESSION_SOURCE_KIND,
  sessionLimits,
} from './session-state/index.js';
export type { SessionEntry, SessionLimits, SessionSetOutcome, SessionSourceOptions, SessionStateBacking } from './session-state/index.js';
export { createHost, createSharedMcpConnections } from './host/index.js';
export type { Host, HostOptions, HostSpaceInfo, HostSpaceOptions, SharedMcpConnections } from './host/index.js';
export {
  createSavedSource,
  MAX_SAVED_DEPTH,
  MAX_SAVED_SOURCE_BYTES,
  parseSavedName,
  readSavedProgram,
  saveProgram,
  SAVED_FORM,
  SAVED_SOURCE_KIND,
  SavedProgramError,
  savedDirectory,
  listSavedNames,
} from './saved-programs/index.js';
export type {
  SavedName,
  SavedOrigin,
  SavedProgram,
  SavedProgramMeta,
  SavedProgramReport,
  SavedProgramsSource,
  SaveProgramOptions,
} from './saved-programs/index.js';

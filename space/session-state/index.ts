export { createMemorySessionState } from './memory-backing.js';
export { entryBytes } from './backing.js';
export type { SessionEntry, SessionLimits, SessionSetOutcome, SessionStateBacking } from './backing.js';
export { createSessionSource, DEFAULT_SESSION_LIMITS, SESSION_SOURCE_KIND, sessionLimits } from './session-source.js';
export type { SessionSourceOptions } from './session-source.js';
export { MAX_SESSION_KEY_CHARS, MAX_SESSION_SCOPE_CHARS, SESSION_MODULE } from './session-tools.js';

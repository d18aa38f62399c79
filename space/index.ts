export { createSpace } from './create-space.js';
export type { Space, SpaceOptions, SpaceRunOptions } from './create-space.js';
export { searchTools, tokenize } from './search-tools.js';
export { addDeclarations, MAX_DECLARATION_CHARS } from './function-declarations.js';
export { createTaskStorage, TASK_STORAGE_MAX_CHARS, TASK_STORAGE_MODULE } from './task-storage.js';
export type { StoredResult, TaskStorage } from './task-storage.js';
export type { DetailLevel, SearchToolsOptions, SearchToolsResult, ToolMatch } from './search-tools.js';

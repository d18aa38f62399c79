export { createFilesSource, filesSource } from './files-source.js';
export type { FilesSourceOptions } from './files-source.js';
export { expandGlobs, isGlob } from './expand-globs.js';
export { toolDefinitionToRaw } from './tool-definition.js';

export { createFilesSource, filesSource } from './files-source.js';
export type { FilesSourceOptions } from './files-source.js';
export { expandGlobs } from './expand-globs.js';

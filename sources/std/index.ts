export { createStdSource, stdWorkspace } from './std-source.js';
export type { StdSourceOptions } from './std-source.js';

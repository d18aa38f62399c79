export { createStdSource, stdModule, stdWorkspace } from './std-source.js';
export type { StdSourceOptions } from './std-source.js';

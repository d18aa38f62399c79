export { createSpace, stdModule } from './create-space.js';
export type { Space, SpaceOptions, SpaceRunOptions } from './create-space.js';

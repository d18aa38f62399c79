export { startStudio, STUDIO_MAX_BODY_BYTES } from './start-studio.js';
export type { RunningStudio, StudioOptions } from './start-studio.js';
export { StudioError } from './studio-error.js';
export { defaultUiDir } from './static-files.js';

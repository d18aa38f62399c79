export { createSavedSource, MAX_SAVED_DEPTH, SAVED_SOURCE_KIND } from './saved-source.js';
export type { SavedProgramRunner, SavedProgramsSource } from './saved-source.js';
export { MAX_SAVED_SOURCE_BYTES, saveProgram } from './save-program.js';
export type { SaveProgramOptions, SavedProgramReport } from './save-program.js';
export { callingForm, readProgramSignature, SAVED_FORM, SavedProgramError } from './program-signature.js';
export type { ProgramSignature } from './program-signature.js';
export { formatSavedName, parseSavedName, savedModule } from './saved-names.js';
export type { SavedName } from './saved-names.js';
export { listSavedNames, readSavedProgram, savedDirectory } from './saved-store.js';
export type { SavedOrigin, SavedProgram, SavedProgramMeta } from './saved-store.js';

import type { CapabilitySource } from '../../sources/index.js';
import type { SavedProgramRunner, SavedProgramsSource } from './saved-source.js';
import { SAVED_SOURCE_KIND } from './saved-source.js';

/** Hands the saved programs' source among `sources` (if any) the space its calls run in. */
export function attachSavedPrograms(sources: readonly CapabilitySource[], run: SavedProgramRunner): void {
  for (const source of sources) {
    if (source.kind === SAVED_SOURCE_KIND && 'attach' in source) (source as SavedProgramsSource).attach(run);
  }
}

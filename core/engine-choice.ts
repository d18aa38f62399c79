/**
 * The names of the sandbox engines, as the config and a run ask for one. Core names none: each engine
 * folder of the runtime adds its own (`declare module '../../core/engine-choice.js' { interface
 * EngineRegistry { 'my-engine': true } }`), so `defineConfig` offers every registered engine's name
 * while adding an engine edits nothing here.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface EngineRegistry {}
export type EngineName = keyof EngineRegistry & string;
/** What a config or a run asks for: an engine, or `auto` (the first engine, in `auto`'s order, that can run here). */
export type EngineChoice = 'auto' | EngineName;

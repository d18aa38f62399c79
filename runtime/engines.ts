/**
 * The engines, by name, and the choice among them. Adding an engine is one folder with an `engine.ts`
 * exporting `loadEngine` and `engineStatus`, and one line in {@link ENGINE_MODULES}.
 */
import { SandboxError } from '../core/errors.js';
import {
  ENGINE_CHOICES,
  type Engine,
  type EngineChoice,
  type EngineName,
  type EnginePlacement,
  type EngineSelection,
  type EngineStatus,
} from './engine.js';

interface EngineModule {
  loadEngine(placement: EnginePlacement): Promise<Engine>;
  engineStatus(): Promise<EngineStatus>;
}

const ENGINE_MODULES: Record<EngineName, () => Promise<EngineModule>> = {
  'isolated-vm': () => import('./isolated-vm/engine.js'),
  quickjs: () => import('./quickjs/engine.js'),
};

const loaded = new Map<string, Promise<Engine>>();
/** Engines and selections made already: a run then starts without waiting a turn (its clock is short). */
const ready = new Map<string, Engine>();
const selections = new Map<string, EngineSelection>();

/** The engine `name`, loaded once per process and placement; rejects with why it cannot load here. */
export function loadEngine(name: EngineName, placement: EnginePlacement): Promise<Engine> {
  const key = `${name}:${placement}`;
  let engine = loaded.get(key);
  if (engine === undefined) {
    engine = ENGINE_MODULES[name]().then((module) => module.loadEngine(placement));
    engine.then(
      (done) => ready.set(key, done),
      () => loaded.delete(key),
    );
    loaded.set(key, engine);
  }
  return engine;
}

/**
 * The engine a choice means here, loaded: at once when both were done before in this process, a
 * promise otherwise.
 */
export function engineFor(choice: EngineChoice, placement: EnginePlacement): Engine | Promise<Engine> {
  const selection = selections.get(`${choice}:${placement}`);
  const engine = selection === undefined ? undefined : ready.get(`${selection.engine}:${placement}`);
  if (engine !== undefined) return engine;
  return selectEngine(choice, placement).then((selected) => loadEngine(selected.engine, placement));
}

/** Whether `name` can run in this process, and why not. */
export async function engineStatus(name: EngineName): Promise<EngineStatus> {
  try {
    return await (await ENGINE_MODULES[name]()).engineStatus();
  } catch (error) {
    return { engine: name, available: false, detail: error instanceof Error ? error.message : String(error), attempts: [] };
  }
}

/** Refuses what is not an engine choice, saying what is. */
export function validateEngineChoice(choice: unknown, where: string): EngineChoice {
  if (typeof choice === 'string' && (ENGINE_CHOICES as readonly string[]).includes(choice)) return choice as EngineChoice;
  throw new SandboxError(
    'INVALID_OPTIONS',
    `${where} must be one of ${ENGINE_CHOICES.map((name) => `"${name}"`).join(', ')} (got ${JSON.stringify(choice)})`,
  );
}

/**
 * The engine a choice means here. `auto`: isolated-vm when its addon loads (and, in the host's own
 * process, Node runs with --no-node-snapshot), QuickJS otherwise. An engine named outright is taken as
 * asked; it fails at its first run if it cannot load.
 */
export async function selectEngine(choice: EngineChoice, placement: EnginePlacement): Promise<EngineSelection> {
  const key = `${choice}:${placement}`;
  const known = selections.get(key);
  if (known !== undefined) return known;
  const selection = await chooseEngine(choice, placement);
  selections.set(key, selection);
  return selection;
}

async function chooseEngine(choice: EngineChoice, placement: EnginePlacement): Promise<EngineSelection> {
  if (choice !== 'auto') return { engine: choice, choice, reason: `${choice}: asked for` };
  const isolatedVm = await engineStatus('isolated-vm');
  if (!isolatedVm.available) return { engine: 'quickjs', choice, reason: `auto: isolated-vm is not available (${isolatedVm.detail})` };
  if (placement === 'in-process') {
    const { hasNoNodeSnapshot } = await import('./isolated-vm/load-isolated-vm.js');
    if (!hasNoNodeSnapshot())
      return {
        engine: 'quickjs',
        choice,
        reason: `auto: ${isolatedVm.detail}, but this process runs without --no-node-snapshot, which in-process isolates need`,
      };
  }
  return { engine: 'isolated-vm', choice, reason: `auto: ${isolatedVm.detail}` };
}

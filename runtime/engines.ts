/**
 * The engines, by name, and the choice among them. Adding an engine is one folder whose `engine.ts`
 * exports its {@link EngineDefinition}, and one entry in {@link ENGINES} (with its import): nothing else
 * in the library imports an engine's folder (contract-imports.test.ts fails otherwise), and the sandbox
 * contract and the hostile suites enumerate this list.
 */
import { SandboxError } from '../core/errors.js';
import type {
  Engine,
  EngineChoice,
  EngineDefinition,
  EngineName,
  EnginePlacement,
  EngineSelection,
  EngineStatus,
  PlacementProblem,
} from './engine.js';
import { isolatedVmEngine } from './isolated-vm/engine.js';
import { quickJsEngine } from './quickjs/engine.js';

/** Every engine there is, in `auto`'s order (each engine's {@link EngineDefinition.autoOrder}). */
export const ENGINES: readonly EngineDefinition[] = [isolatedVmEngine, quickJsEngine].sort((a, b) => a.autoOrder - b.autoOrder);

/** The engines' names, in `auto`'s order. */
export const ENGINE_NAMES: readonly EngineName[] = ENGINES.map((engine) => engine.name);
export const ENGINE_CHOICES: readonly EngineChoice[] = ['auto', ...ENGINE_NAMES];

const loaded = new Map<string, Promise<Engine>>();
/** Engines and selections made already: a run then starts without waiting a turn (its clock is short). */
const ready = new Map<string, Engine>();
const selections = new Map<string, EngineSelection>();

export function isEngineName(name: unknown): name is EngineName {
  return typeof name === 'string' && (ENGINE_NAMES as readonly string[]).includes(name);
}

function definitionOf(name: EngineName): EngineDefinition {
  const definition = ENGINES.find((engine) => engine.name === name);
  if (definition === undefined) throw new SandboxError('INVALID_OPTIONS', `no engine is named ${JSON.stringify(name)}`);
  return definition;
}

/** The engine `name`, loaded once per process and placement; rejects with why it cannot load here. */
export function loadEngine(name: EngineName, placement: EnginePlacement): Promise<Engine> {
  const key = `${name}:${placement}`;
  let engine = loaded.get(key);
  if (engine === undefined) {
    engine = Promise.resolve().then(() => definitionOf(name).load(placement));
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
export function engineStatus(name: EngineName): Promise<EngineStatus> {
  return statusOf(definitionOf(name));
}

async function statusOf(definition: EngineDefinition): Promise<EngineStatus> {
  try {
    return await definition.status();
  } catch (error) {
    return { engine: definition.name, available: false, detail: error instanceof Error ? error.message : String(error), attempts: [] };
  }
}

/** One engine as `agent-spaces doctor` reports it: whether it loads here, and what to do about it. */
export interface EngineCheck {
  status: EngineStatus;
  /** What to do so that it loads here (empty when it does). */
  remedy: string[];
  /** Why it cannot run in the host's own process although it loads (e.g. a flag Node lacks), or undefined. */
  inProcessProblem?: PlacementProblem;
}

/** Every registered engine, in `auto`'s order, checked in this process. */
export async function checkEngines(): Promise<EngineCheck[]> {
  return Promise.all(
    ENGINES.map(async (definition) => {
      const status = await statusOf(definition);
      if (!status.available) return { status, remedy: definition.remedy?.(status) ?? [] };
      const problem = definition.placementProblem('in-process');
      return { status, remedy: [], ...(problem === undefined ? {} : { inProcessProblem: problem }) };
    }),
  );
}

/** Why engine `name` cannot run in `placement` in this process although it loads (see {@link EngineDefinition.placementProblem}). */
export function placementProblem(name: EngineName, placement: EnginePlacement): PlacementProblem | undefined {
  return definitionOf(name).placementProblem(placement);
}

/** Refuses what is not an engine choice, saying what is. */
export function validateEngineChoice(choice: unknown, where: string): EngineChoice {
  if (choice === 'auto' || isEngineName(choice)) return choice;
  throw new SandboxError(
    'INVALID_OPTIONS',
    `${where} must be one of ${ENGINE_CHOICES.map((name) => `"${name}"`).join(', ')} (got ${JSON.stringify(choice)})`,
  );
}

/**
 * The engine a choice means here. `auto`: the first engine in {@link ENGINES} that loads and can run in
 * the placement (isolated-vm when its addon loads and, in the host's own process, Node runs with
 * --no-node-snapshot; QuickJS otherwise). An engine named outright is taken as asked; it fails at its
 * first run if it cannot load.
 */
export async function selectEngine(choice: EngineChoice, placement: EnginePlacement): Promise<EngineSelection> {
  const key = `${choice}:${placement}`;
  const known = selections.get(key);
  if (known !== undefined) return known;
  const selection = choice === 'auto' ? await chooseAuto(ENGINES, placement) : { engine: choice, choice, reason: `${choice}: asked for` };
  selections.set(key, selection);
  return selection;
}

/**
 * What `auto` takes among `engines` (in their order): the first that loads and can run in `placement`.
 * The reason names that engine's status when it is the first, else why each engine before it was
 * passed over. When none can run, the last is taken (its first run says why it cannot).
 */
export async function chooseAuto(engines: readonly EngineDefinition[], placement: EnginePlacement): Promise<EngineSelection> {
  const passedOver: string[] = [];
  for (const [index, definition] of engines.entries()) {
    const last = index === engines.length - 1;
    const status = await statusOf(definition);
    const problem = status.available ? definition.placementProblem(placement) : undefined;
    if (status.available && problem === undefined)
      return {
        engine: definition.name,
        choice: 'auto',
        reason: `auto: ${passedOver.length === 0 ? status.detail : passedOver.join('; ')}`,
      };
    if (last)
      return {
        engine: definition.name,
        choice: 'auto',
        reason: `auto: ${[...passedOver, `${definition.name}: ${status.detail}`].join('; ')}`,
      };
    passedOver.push(
      problem === undefined ? `${definition.name} is not available (${status.detail})` : `${status.detail}, but ${problem.autoReason}`,
    );
  }
  throw new SandboxError('ENGINE_UNAVAILABLE', 'no sandbox engine is registered');
}

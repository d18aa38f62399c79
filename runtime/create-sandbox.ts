import { SandboxError } from '../core/errors.js';
import type { RunResult } from '../core/run-result.js';
import type { EngineChoice, EngineName } from './engine.js';
import { engineFor, placementProblem, selectEngine, validateEngineChoice } from './engines.js';
import { createInProcessExecutor } from './in-process-executor.js';
import type { ExecuteOptions, IsolateExecutor } from './isolate-executor.js';
import { createProgramSandbox, validateSandboxOutDir } from './program-sandbox.js';
import { resolveRunLimits } from './resolve-run-limits.js';
import type { Isolation, RunLimits, Sandbox, SandboxOptions } from './sandbox.js';
import { createWorkerPoolExecutor, type WorkerPoolExecutor } from './worker-pool/worker-pool.js';

/** A sandbox whose isolates live in pooled workers (processes, or threads); `pids()` names them (process ids, or thread ids). */
export interface WorkerSandbox extends Sandbox {
  pids(): number[];
  /** Resolves once every worker is started. */
  ready(): Promise<void>;
}

/**
 * Creates a sandbox over a build output folder. `isolation: 'worker'` (default) keeps `workers`
 * pre-started sandbox processes (2 by default); `thread` keeps them on threads of this process; `thread`
 * and `in-process` with isolated-vm need Node started with `--no-node-snapshot`. `engine` (default `auto`): isolated-vm when it loads, QuickJS otherwise; each
 * run may ask for another. Throws for bad options or a missing build folder.
 *
 * @example
 * const sandbox = createSandbox({ outDir: '.agent-spaces' });
 * const result = await sandbox.run('return 1 + 1', { onCall: bridge.handle });
 * await sandbox.close();
 */
export function createSandbox(options: SandboxOptions & { isolation: 'worker' | 'thread' }): WorkerSandbox;
export function createSandbox(options: SandboxOptions): Sandbox;
export function createSandbox(options: SandboxOptions): Sandbox {
  const outDir = validateSandboxOutDir(options?.outDir);
  const limits = resolveRunLimits(undefined, options.limits);
  const { isolation, executors } = placedExecutors(options);
  const sandbox = createProgramSandbox(executors, { outDir, limits });
  if (isolation === 'in-process') return sandbox;
  const pool = executors.defaultPool();
  const workerSandbox: WorkerSandbox = { ...sandbox, pids: pool.pids, ready: pool.ready };
  return workerSandbox;
}

/** Sandboxes over several build output folders that share one pool of isolates (see {@link createSandboxPool}). */
export interface SandboxPool {
  /** A sandbox over `outDir` running in this pool; closing it leaves the pool open. */
  sandbox(options: { outDir: string; limits?: Partial<RunLimits> }): Sandbox;
  /** The pool's workers: process ids, or thread ids (empty in-process). */
  pids(): number[];
  close(): Promise<void>;
}

/**
 * One pool of sandbox worker processes (or one in-process engine) for several spaces: each space's
 * sandbox runs programs against its own build output folder (every run names its folder, and a worker
 * resolves `@capabilities/*` in that folder alone) and its own limits; the workers and engines are shared.
 */
export function createSandboxPool(options: Omit<SandboxOptions, 'outDir' | 'limits'> = {}): SandboxPool {
  const { isolation, executors } = placedExecutors(options);
  const shared: IsolateExecutor = {
    execute: (request, onCall, run) => executors.execute(request, onCall, run),
    close: async () => undefined,
  };
  return {
    sandbox: ({ outDir, limits }) =>
      createProgramSandbox(shared, { outDir: validateSandboxOutDir(outDir), limits: resolveRunLimits(undefined, limits) }),
    pids: () => (isolation === 'in-process' ? [] : executors.defaultPool().pids()),
    close: () => executors.close(),
  };
}

/** The executors of a sandbox's options, checked: isolation, engine, workers, runs per worker. */
function placedExecutors(options: Omit<SandboxOptions, 'outDir' | 'limits'>): { isolation: Isolation; executors: EngineExecutors } {
  const isolation = options.isolation ?? 'worker';
  if (isolation !== 'worker' && isolation !== 'thread' && isolation !== 'in-process')
    throw new SandboxError('INVALID_OPTIONS', `isolation must be "worker", "thread" or "in-process" (got ${JSON.stringify(isolation)})`);
  // AGENT_SPACES_ENGINE picks the engine where neither the caller nor the config does (CI runs whole
  // suites on one engine with it).
  const engine =
    options.engine === undefined && process.env['AGENT_SPACES_ENGINE'] !== undefined
      ? validateEngineChoice(process.env['AGENT_SPACES_ENGINE'], 'AGENT_SPACES_ENGINE')
      : validateEngineChoice(options.engine ?? 'auto', 'the sandbox engine (engine)');
  const workers = options.workers ?? 2;
  if (!Number.isInteger(workers) || workers < 1)
    throw new SandboxError('INVALID_OPTIONS', `workers must be a positive integer (got ${String(workers)})`);
  const runsPerWorker = options.runsPerWorker ?? 8;
  if (!Number.isInteger(runsPerWorker) || runsPerWorker < 1)
    throw new SandboxError('INVALID_OPTIONS', `runsPerWorker must be a positive integer (got ${String(runsPerWorker)})`);
  if (isolation !== 'worker') checkPlacement(engine, isolation);
  return { isolation, executors: new EngineExecutors(isolation, engine, { workers, runsPerWorker }) };
}

/** Refuses an engine named outright that cannot run in this process or its threads (`auto` passes such an engine over). */
function checkPlacement(engine: EngineChoice, placement: 'thread' | 'in-process'): void {
  const problem = engine === 'auto' ? undefined : placementProblem(engine, placement);
  if (problem !== undefined) throw new SandboxError(problem.code, problem.message);
}

interface PlacedExecutor {
  executor: IsolateExecutor;
  /** Which engine runs, and why; undefined until known. */
  engine(): Promise<{ name: EngineName; reason: string } | undefined>;
}

/**
 * One executor per engine choice, made when a run first asks for it (the sandbox's own choice at once,
 * for worker isolation: its workers start with the sandbox). Each result says which engine ran it.
 */
class EngineExecutors implements IsolateExecutor {
  readonly #placed = new Map<EngineChoice, PlacedExecutor>();
  #defaultPool: WorkerPoolExecutor | undefined;

  constructor(
    readonly isolation: Isolation,
    readonly choice: EngineChoice,
    readonly pool: { workers: number; runsPerWorker: number },
  ) {
    this.#executorFor(choice);
  }

  defaultPool(): WorkerPoolExecutor {
    if (this.#defaultPool === undefined) throw new SandboxError('INVALID_OPTIONS', 'this sandbox has no worker pool');
    return this.#defaultPool;
  }

  async execute(
    request: Parameters<IsolateExecutor['execute']>[0],
    onCall: Parameters<IsolateExecutor['execute']>[1],
    options: ExecuteOptions = {},
  ): Promise<RunResult> {
    const choice = options.engine === undefined ? this.choice : validateEngineChoice(options.engine, "the run's engine");
    if (this.isolation !== 'worker') checkPlacement(choice, this.isolation);
    const placed = this.#executorFor(choice);
    const result = await placed.executor.execute(request, onCall, options);
    const engine = await placed.engine();
    return engine === undefined ? result : { ...result, engine };
  }

  async close(): Promise<void> {
    await Promise.all([...this.#placed.values()].map((placed) => placed.executor.close()));
  }

  #executorFor(choice: EngineChoice): PlacedExecutor {
    let placed = this.#placed.get(choice);
    if (placed !== undefined) return placed;
    if (this.isolation === 'in-process') {
      const selection = selectEngine(choice, 'in-process');
      selection.catch(() => undefined);
      const executor = createInProcessExecutor(() => engineFor(choice, 'in-process'));
      placed = { executor, engine: async () => selection.then(({ engine, reason }) => ({ name: engine, reason })) };
    } else {
      const executor = createWorkerPoolExecutor({
        ...this.pool,
        engine: choice,
        transport: this.isolation === 'thread' ? 'thread' : 'process',
      });
      this.#defaultPool ??= executor;
      placed = { executor, engine: async () => executor.engine() };
    }
    this.#placed.set(choice, placed);
    return placed;
  }
}

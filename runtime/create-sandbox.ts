import { SandboxError } from '../core/errors.js';
import { createInProcessExecutor } from './isolated-vm/in-process-executor.js';
import { createProgramSandbox, validateSandboxOutDir } from './program-sandbox.js';
import { resolveRunLimits } from './resolve-run-limits.js';
import type { Sandbox, SandboxOptions } from './sandbox.js';
import { createWorkerPoolExecutor, type WorkerPoolExecutor } from './worker-pool/worker-pool.js';

/** A sandbox whose isolates live in pooled worker processes; `pids()` names them. */
export interface WorkerSandbox extends Sandbox {
  pids(): number[];
  /** Resolves once every worker is started. */
  ready(): Promise<void>;
}

/**
 * Creates a sandbox over a build output folder. `isolation: 'worker'` (default) keeps `workers`
 * pre-started sandbox processes (2 by default); `in-process` needs Node started with
 * `--no-node-snapshot`. Throws for bad options or a missing build folder.
 *
 * @example
 * const sandbox = createSandbox({ outDir: '.agent-spaces' });
 * const result = await sandbox.run('return 1 + 1', { onCall: bridge.handle });
 * await sandbox.close();
 */
export function createSandbox(options: SandboxOptions & { isolation: 'worker' }): WorkerSandbox;
export function createSandbox(options: SandboxOptions): Sandbox;
export function createSandbox(options: SandboxOptions): Sandbox {
  const outDir = validateSandboxOutDir(options?.outDir);
  const limits = resolveRunLimits(undefined, options.limits);
  const isolation = options.isolation ?? 'worker';
  if (isolation === 'in-process') return createProgramSandbox(createInProcessExecutor(), { outDir, limits });
  if (isolation !== 'worker') throw new SandboxError('INVALID_OPTIONS', `isolation must be "worker" or "in-process" (got ${JSON.stringify(isolation)})`);
  const workers = options.workers ?? 2;
  if (!Number.isInteger(workers) || workers < 1) throw new SandboxError('INVALID_OPTIONS', `workers must be a positive integer (got ${String(workers)})`);
  const runsPerWorker = options.runsPerWorker ?? 8;
  if (!Number.isInteger(runsPerWorker) || runsPerWorker < 1) throw new SandboxError('INVALID_OPTIONS', `runsPerWorker must be a positive integer (got ${String(runsPerWorker)})`);
  const executor: WorkerPoolExecutor = createWorkerPoolExecutor({ workers, runsPerWorker });
  const sandbox: WorkerSandbox = { ...createProgramSandbox(executor, { outDir, limits }), pids: executor.pids, ready: executor.ready };
  return sandbox;
}

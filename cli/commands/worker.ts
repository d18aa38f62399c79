import { openSpace } from '../../agents/index.js';
import { loadConfig } from '../../config/index.js';
import { secretsOfConfig } from '../../sources/index.js';
import { openAgentSessionStore, STORE_ENV } from '../../store/index.js';
import { startWorker } from '../../worker/index.js';
import { progress, UsageError } from '../output.js';
import { storeOf } from '../store-option.js';

export interface WorkerCommandOptions {
  cwd: string;
  config?: string;
  store?: string;
  concurrency?: string;
  /** The worker's id in the store (default: host, pid and a random part). */
  id?: string;
  verbose: boolean;
}

/** `agent-spaces worker`: executes the store's queued runs until interrupted. */
export async function workerCommand(options: WorkerCommandOptions): Promise<number> {
  let concurrency: number | undefined;
  if (options.concurrency !== undefined) {
    concurrency = Number(options.concurrency);
    if (!Number.isInteger(concurrency) || concurrency <= 0)
      throw new UsageError(`--concurrency takes a positive whole number (got "${options.concurrency}")`);
  }
  if (options.id !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$/.test(options.id)) {
    throw new UsageError(`--id takes letters, digits and _ . : @ - (at most 128, starting with a letter or digit; got "${options.id}")`);
  }
  const config = await loadConfig({ cwd: options.cwd, ...(options.config ? { file: options.config } : {}) });
  const store = storeOf(options.store, config);
  if (store === undefined) throw new UsageError(`worker needs a store: --store postgres://…, "store" in the config, or $${STORE_ENV}`);
  let fatal: Error | undefined;
  let wake: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    wake = resolve;
  });
  // execute_agent sessions go to the store, so a follow-up continues on whichever worker takes it.
  const agentSessions = await openAgentSessionStore(store, secretsOfConfig(config)).catch(failedStart);
  const worker = await startWorker({
    store,
    config,
    openSpace: (spaceOptions) => openSpace(spaceOptions, { sessions: agentSessions }),
    ...(concurrency ? { concurrency } : {}),
    ...(options.id !== undefined ? { executorId: options.id } : {}),
    onNotice: (line) => {
      if (options.verbose || !line.startsWith('run ')) progress(line);
    },
    onFatal: (error) => {
      fatal = error;
      wake();
    },
  }).catch(async (error: unknown) => {
    await agentSessions.close();
    failedStart(error);
  });
  progress(`worker ${worker.executorId} ready (Ctrl-C stops it; its unfinished runs go to other workers)`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, wake);
  await stopped;
  exitAfterGrace(fatal === undefined ? 0 : 1);
  await worker.close();
  await agentSessions.close();
  if (fatal !== undefined) {
    progress(`agent-spaces: worker stopped: ${(fatal as Error).message}`);
    return 1;
  }
  return 0;
}

/** How long a worker that stops (or could not start) may take to close what it opened before it exits anyway. */
const EXIT_GRACE_MS = 5000;

/**
 * A worker that could not start, or that stopped, must end — non-zero when it failed — so that a
 * supervisor restarts it and its runs go to other workers: nothing it still has open (a connection
 * attempt, a child process of its space) may keep it alive. It closes what it opened first; past the
 * grace period the process exits with the code the command set (else `code`).
 */
function exitAfterGrace(code: number): void {
  setTimeout(() => process.exit(process.exitCode ?? code), EXIT_GRACE_MS).unref();
}

/** A start that failed: the process exits after the grace period, whatever is left open. */
function failedStart(error: unknown): never {
  exitAfterGrace(1);
  throw error;
}

import { SandboxError } from '../../core/errors.js';
import type { IsolateExecutor } from '../isolate-executor.js';
import { prepareIsolate, startIsolateRun, type PreparedIsolate } from './run-in-isolate.js';

/** Whether this process was started with `--no-node-snapshot`, which isolated-vm needs on Node 20+. */
export function hasNoNodeSnapshot(): boolean {
  const flags = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  return flags.includes('--no-node-snapshot');
}

/**
 * Runs isolates in this process: the fastest path, for trusted code. A program that spins after an
 * `await` can keep an isolate thread busy after its run reported the timeout; worker isolation kills
 * such a worker instead.
 */
export function createInProcessExecutor(): IsolateExecutor {
  if (!hasNoNodeSnapshot()) {
    throw new SandboxError('NODE_SNAPSHOT_ENABLED', 'in-process isolation needs Node started with --no-node-snapshot (isolated-vm crashes without it); start node with that flag, set NODE_OPTIONS=--no-node-snapshot, or use isolation: "worker"');
  }
  // The next run's isolate, prepared once the host has a free moment after a run.
  let spare: PreparedIsolate | undefined;
  let closed = false;
  const prepareSpare = (memoryLimitMb: number): void => {
    setImmediate(() => {
      if (!closed && spare === undefined) spare = prepareIsolate(memoryLimitMb);
    });
  };
  return {
    async execute(request, onCall, signal) {
      const run = startIsolateRun(request, onCall, spare);
      spare = undefined;
      const onAbort = (): void => run.cancel();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted === true) onAbort();
      try {
        return await run.result;
      } finally {
        signal?.removeEventListener('abort', onAbort);
        prepareSpare(request.limits.memoryLimitMb);
      }
    },
    async close() {
      closed = true;
      if (spare !== undefined && !spare.isolate.isDisposed) spare.isolate.dispose();
      spare = undefined;
    },
  };
}

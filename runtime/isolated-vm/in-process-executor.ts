import { SandboxError } from '../../core/errors.js';
import type { RunLog, RunResult } from '../../core/run-result.js';
import { createCallGate } from '../host/call-gate.js';
import type { IsolateExecutor } from '../isolate-executor.js';
import { prepareIsolate, startIsolateRun, type IsolateOutcome, type PreparedIsolate } from './run-in-isolate.js';

/** Whether this process was started with `--no-node-snapshot`, which isolated-vm needs on Node 20+. */
export function hasNoNodeSnapshot(): boolean {
  const flags = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  return flags.includes('--no-node-snapshot');
}

/**
 * Runs isolates in this process: the fastest path, for trusted code. A program that spins after an
 * `await` can keep an isolate thread busy after its run reported the timeout, and a native crash of
 * isolated-vm takes this process with it; worker isolation kills such a worker instead. Never use it
 * for code from a remote caller.
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
    async execute(request, onCall, options = {}) {
      const { signal, onLog } = options;
      const logs: RunLog[] = [];
      const callController = new AbortController();
      let holdDeadline: () => () => void = () => () => undefined;
      const gate = createCallGate({
        limits: request.limits,
        onCall,
        context: { runId: request.runId, signal: callController.signal, holdDeadline: () => holdDeadline() },
        reply: (id, ok, json) => run.reply(id, ok, json),
      });
      /** The host's onLog threw: the run stops and execute rejects with it. */
      let logFault: { error: unknown } | undefined;
      const run = startIsolateRun(request, {
        call: (id, capability, fn, argsJson, resultMode) => gate.submit(id, capability, fn, argsJson, resultMode),
        log(level, message) {
          const log = { level, message };
          logs.push(log);
          try {
            onLog?.(log);
          } catch (error) {
            // Not into the isolate: the program would read the host's error, its stack and paths.
            logFault ??= { error };
            run.abort({ name: 'SandboxError', code: 'SANDBOX_ERROR', message: "the host's log handler failed; the run was stopped" });
          }
        },
      }, spare);
      holdDeadline = run.holdDeadline;
      spare = undefined;
      const onAbort = (): void => run.cancel();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted === true) onAbort();
      try {
        const outcome = await run.outcome;
        if (logFault !== undefined) throw logFault.error;
        return toRunResult(outcome, logs, gate.calls);
      } finally {
        gate.close();
        callController.abort(new Error(`run ${request.runId} ended`));
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

/** The run's result, with the result's JSON text parsed once. */
export function toRunResult(outcome: IsolateOutcome, logs: RunLog[], calls: number): RunResult {
  return {
    success: outcome.success,
    result: outcome.resultJson === undefined ? null : (JSON.parse(outcome.resultJson) as unknown),
    logs,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    timedOut: outcome.timedOut,
    calls,
    durationMs: outcome.durationMs,
  };
}

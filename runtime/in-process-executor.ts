import type { RunLog, RunResult } from '../core/run-result.js';
import type { Engine, EngineOutcome, SpareInstance } from './engine.js';
import { createCallGate } from './host/call-gate.js';
import type { IsolateExecutor } from './isolate-executor.js';

/**
 * Runs programs in this process: the fastest path, for trusted code. With isolated-vm a program that
 * spins after an `await` can keep an isolate thread busy after its run reported the timeout, and a
 * native crash of isolated-vm takes this process with it; with QuickJS the program computes on this
 * thread (each entry bounded by the run's time), so the host's event loop waits while it does. Worker
 * isolation kills a stuck worker instead. Never use it for code from a remote caller.
 */
export function createInProcessExecutor(load: () => Engine | Promise<Engine>): IsolateExecutor {
  // The next run's instance, prepared once the host has a free moment after a run.
  let spare: SpareInstance | undefined;
  let closed = false;
  const prepareSpare = (engine: Engine, memoryLimitMb: number): void => {
    setImmediate(() => {
      if (!closed && spare === undefined) spare = engine.prepare(memoryLimitMb);
    });
  };
  return {
    async execute(request, onCall, options = {}) {
      // Not awaited when loaded already: nothing else gets the thread between the caller and the start.
      const loading = load();
      const engine = loading instanceof Promise ? await loading : loading;
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
      const run = engine.startRun(
        request,
        {
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
        },
        spare,
      );
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
        prepareSpare(engine, request.limits.memoryLimitMb);
      }
    },
    async close() {
      closed = true;
      spare?.dispose();
      spare = undefined;
    },
  };
}

/** The run's result, with the result's JSON text parsed once. */
export function toRunResult(outcome: EngineOutcome, logs: RunLog[], calls: number): RunResult {
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

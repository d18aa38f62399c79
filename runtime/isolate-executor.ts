import type { CapabilityCallHandler } from '../core/protocol.js';
import type { RunLog, RunResult } from '../core/run-result.js';
import type { EngineChoice, EngineRunRequest } from './engine.js';

export interface ExecuteOptions {
  /** Aborting ends the run with `CANCELLED`. */
  signal?: AbortSignal;
  /** Each log line as the program writes it (they are also in the result). */
  onLog?: (log: RunLog) => void;
  /** The engine for this run (default: the sandbox's). */
  engine?: EngineChoice;
}

/**
 * Where compiled programs run: in this process (in-process-executor.ts), or in a pooled sandbox worker
 * (worker-pool/). This interface imports neither, nor any engine: only the engine contract's types.
 * Results carry positions of the compiled JavaScript; the sandbox front end maps them back.
 */
export interface IsolateExecutor {
  execute(request: EngineRunRequest, onCall: CapabilityCallHandler, options?: ExecuteOptions): Promise<RunResult>;
  close(): Promise<void>;
}

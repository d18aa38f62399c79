import type { CapabilityCallHandler } from '../core/protocol.js';
import type { RunLog, RunResult } from '../core/run-result.js';
import type { EngineChoice, EngineRunRequest as IsolateRunRequest } from './engine.js';

export interface ExecuteOptions {
  /** Aborting ends the run with `CANCELLED`. */
  signal?: AbortSignal;
  /** Each log line as the program writes it (they are also in the result). */
  onLog?: (log: RunLog) => void;
  /** The engine for this run (default: the sandbox's). */
  engine?: EngineChoice;
}

/**
 * Where compiled programs run: in this process, or in a pooled sandbox worker. Results carry
 * positions of the compiled JavaScript; the sandbox front end maps them back.
 */
export interface IsolateExecutor {
  execute(request: IsolateRunRequest, onCall: CapabilityCallHandler, options?: ExecuteOptions): Promise<RunResult>;
  close(): Promise<void>;
}

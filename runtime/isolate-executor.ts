import type { CapabilityCallHandler } from '../core/protocol.js';
import type { RunResult } from '../core/run-result.js';
import type { IsolateRunRequest } from './isolated-vm/run-in-isolate.js';

/**
 * Where compiled programs run: in this process, or in a pooled sandbox worker. Results carry
 * positions of the compiled JavaScript; the sandbox front end maps them back.
 */
export interface IsolateExecutor {
  execute(request: IsolateRunRequest, onCall: CapabilityCallHandler, signal?: AbortSignal): Promise<RunResult>;
  close(): Promise<void>;
}

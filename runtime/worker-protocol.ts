/**
 * The typed contract between the host and a sandbox worker process (IPC, JSON). Capability calls use
 * the JSON-RPC shapes of core/protocol.ts; runs and their lifecycle use the messages below. Both
 * sides import this file; neither imports the other.
 */
import type { CapabilityCallRequest, CapabilityCallResponse } from '../core/protocol.js';
import type { RunResult } from '../core/run-result.js';
import type { IsolateRunRequest } from './isolated-vm/run-in-isolate.js';

export type HostToWorkerMessage =
  | { type: 'run'; request: IsolateRunRequest }
  | { type: 'cancel'; runId: string }
  /** Stop (`hold`) or restart (`release`) the run's wall clock while the host waits on a person. */
  | { type: 'hold' | 'release'; runId: string; holdId: number }
  | { type: 'call-response'; runId: string; response: CapabilityCallResponse };

export type WorkerToHostMessage =
  /** The worker loaded isolated-vm and takes runs. */
  | { type: 'ready'; pid: number }
  | { type: 'call'; runId: string; request: CapabilityCallRequest }
  /** The run ended; its isolate may still be stopping. */
  | { type: 'result'; runId: string; result: RunResult }
  /** The run's isolate stopped executing; the worker takes the next run. */
  | { type: 'released'; runId: string };

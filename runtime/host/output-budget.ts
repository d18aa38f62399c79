/**
 * Counts what a run sends back — logs, result, error — against `maxOutputBytes`, by the size each
 * takes as JSON in the run's result (a log entry with its `{"level":…,"message":…}` wrapper, an error
 * with its stack). The same count is kept in the sandbox worker and, again, on the host, which trusts
 * no count of the worker's.
 */
import type { RunError } from '../../core/run-result.js';

export interface OutputBudget {
  readonly max: number;
  readonly used: number;
  /** Counts `bytes`; false (and nothing counted) when they do not fit. */
  take(bytes: number): boolean;
}

export function createOutputBudget(max: number): OutputBudget {
  let used = 0;
  return {
    max,
    get used() {
      return used;
    },
    take(bytes) {
      if (used + bytes > max) return false;
      used += bytes;
      return true;
    },
  };
}

/** `{"level":"","message":}` around the message's JSON text. */
const LOG_ENTRY_OVERHEAD = 23;

export function logEntryBytes(level: string, message: string): number {
  return LOG_ENTRY_OVERHEAD + level.length + Buffer.byteLength(JSON.stringify(message), 'utf8');
}

export function errorBytes(error: RunError): number {
  return Buffer.byteLength(JSON.stringify(error), 'utf8');
}

export function outputLimitError(what: string, max: number): RunError {
  return {
    name: 'SandboxOutputError',
    code: 'OUTPUT_LIMIT',
    message: `${what} passes the output limit of ${max} bytes (logs, result and error together, as JSON); the run was stopped. Log or return less, or raise sandbox.maxOutputBytes in the config`,
  };
}

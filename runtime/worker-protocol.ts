/**
 * The contract between the host and a sandbox worker process: the headers of the frames of
 * worker-pool/frames.ts. Bodies carry text that is never parsed on the way (arguments, replies, log
 * lines, results). Both sides import this file; neither imports the other. The host reads every
 * header the worker sends with {@link readWorkerHeader}: a worker runs hostile code and may lie.
 */
import type { ResultMode } from '../core/protocol.js';
import type { LogLevel } from '../core/run-result.js';
import type { EngineName } from './engine.js';
import type { RunLimits } from './sandbox.js';

export type HostToWorkerHeader =
  /** Body: the compiled program. */
  | { t: 'run'; runId: string; outDir: string; limits: RunLimits }
  | { t: 'cancel'; runId: string }
  /** Stop (`hold`) or restart (`release`) the run's wall clock while the host waits on a person. */
  | { t: 'hold' | 'release'; runId: string; holdId: number }
  /** Body: the value's JSON text, or a wire error's when `ok` is false. */
  | { t: 'reply'; runId: string; id: number; ok: boolean }
  /**
   * The pool is done with this worker: it stops every run's engine instance and ends by itself. Sent to a
   * thread before it is terminated: terminating a thread while isolated-vm is inside a call into it aborts
   * the whole process (a worker process is killed; it dies alone).
   */
  | { t: 'stop' };

export type WorkerToHostHeader =
  /**
   * The worker loaded its engine and takes runs; `engine` and `reason` say which and why (shown, never
   * trusted: the pool keeps `engine` only when it names a registered engine).
   */
  | { t: 'ready'; pid: number; engine?: EngineName; reason?: string }
  /** Body: the arguments' JSON text. */
  | { t: 'call'; runId: string; id: number; capability: string; fn: string; mode: ResultMode }
  /** Body: the line. */
  | { t: 'log'; runId: string; level: LogLevel }
  /** The run ended; its isolate may still be stopping. Body: the result's JSON text, or the error's. */
  | { t: 'result'; runId: string; ok: boolean; timedOut: boolean }
  /** The run's isolate stopped executing. */
  | { t: 'released'; runId: string };

const LEVELS: ReadonlySet<string> = new Set(['log', 'info', 'warn', 'error', 'debug']);
/** Longest run id, capability or function name the host accepts in a header. */
export const MAX_NAME = 512;

/** Parses a header from a worker; `undefined` when it is not one the contract allows. */
export function readWorkerHeader(text: string): WorkerToHostHeader | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const header = raw as Record<string, unknown>;
  const name = (key: string): boolean => typeof header[key] === 'string' && (header[key] as string).length <= MAX_NAME;
  const id = (key: string): boolean => Number.isSafeInteger(header[key]);
  switch (header['t']) {
    case 'ready':
      if (!id('pid')) return undefined;
      return {
        t: 'ready',
        pid: header['pid'] as number,
        ...(name('engine') ? { engine: header['engine'] as EngineName } : {}),
        ...(name('reason') ? { reason: header['reason'] as string } : {}),
      };
    case 'call':
      return name('runId') && id('id') && name('capability') && name('fn') && (header['mode'] === 'value' || header['mode'] === 'full')
        ? {
            t: 'call',
            runId: header['runId'] as string,
            id: header['id'] as number,
            capability: header['capability'] as string,
            fn: header['fn'] as string,
            mode: header['mode'],
          }
        : undefined;
    case 'log':
      return name('runId') && LEVELS.has(header['level'] as string)
        ? { t: 'log', runId: header['runId'] as string, level: header['level'] as LogLevel }
        : undefined;
    case 'result':
      return name('runId') && typeof header['ok'] === 'boolean' && typeof header['timedOut'] === 'boolean'
        ? { t: 'result', runId: header['runId'] as string, ok: header['ok'], timedOut: header['timedOut'] }
        : undefined;
    case 'released':
      return name('runId') ? { t: 'released', runId: header['runId'] as string } : undefined;
    default:
      return undefined;
  }
}

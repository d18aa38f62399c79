/** The messages between the host's type checker and its check worker (one check at a time per worker). */
import type { Diagnostic } from '../../core/run-result.js';

/** `timeoutMs`: the check's time limit (the native checker's worker stops its compiler by itself when it is reached). */
export type HostToCheckWorker = { type: 'check'; id: number; outDir: string; code: string; timeoutMs: number };

export type CheckWorkerToHost =
  /** Loaded, waiting for checks. */
  | { type: 'ready' }
  /**
   * The project of `outDir` was loaded (made, or its declarations read again) and is ready: the check
   * itself (the part a program can make slow) begins. Not sent when the project was warm.
   */
  | { type: 'started'; id: number }
  | { type: 'result'; id: number; diagnostics: Diagnostic[] }
  /** A compiler process of the check started (`pid`) or ended (undefined): the host kills it when it stops the worker. */
  | { type: 'compiler'; pid: number | undefined };

/** The `code` of the one diagnostic of a check that was stopped (time, memory, a crash): the program was not checked. */
export const TYPE_CHECK_STOPPED = -1;

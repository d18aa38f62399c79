/**
 * The type checker of programs, off the host's thread: checks run in worker threads (check-pool.ts)
 * that keep a warm TypeScript project per build, with a time and a heap limit per check. Importing
 * this file loads no TypeScript; the workers do.
 */
import path from 'node:path';
import type { Diagnostic } from '../core/run-result.js';
import { createCheckPool, type CheckPool } from './type-check/check-pool.js';
import { TYPE_CHECK_STOPPED } from './type-check/check-protocol.js';

export { TYPE_CHECK_STOPPED };

export interface TypeChecker {
  /**
   * Type errors of the program, in its own line/column (1-based); empty when it checks. A check that
   * passed its time or memory limit answers with one diagnostic whose `code` is `TYPE_CHECK_STOPPED`.
   */
  check(code: string, options?: { timeoutMs?: number }): Promise<Diagnostic[]>;
}

export interface TypeCheckerOptions {
  /** The build output folder whose `capabilities.d.ts` programs are checked against. */
  outDir: string;
  /** How long one check may take before it is stopped (default 10 000 ms). */
  timeoutMs?: number;
  /** Heap limit of a check worker (default 512 MB); checks with the same limit share workers. */
  memoryLimitMb?: number;
}

export const DEFAULT_TYPE_CHECK_LIMITS = { timeoutMs: 10_000, memoryLimitMb: 512 } as const;

/** Workers per heap limit: one warm, and a second while the first is busy (e.g. stuck on a pathological type). */
const MAX_WORKERS = 2;
const pools = new Map<string, CheckPool>();
/** Checks of this process go to TypeScript 7's native compiler (see {@link useNativeTypeChecker}). */
let native = false;

/** Which checker the checks of this process use, and why. */
export type TypeCheckerChoice = { native: true; detail: string } | { native: false; reason: string };

/**
 * For a process that checks a program or two and ends (the CLI's `run`): its checks from now on run
 * TypeScript 7's native compiler where it is installed for this platform (the `typescript-native`
 * package), instead of loading TypeScript 5 and binding its lib in a warm worker, which only pays off
 * over many checks. The diagnostics are the same. Where it is not installed, or fails to start, the
 * checks stay with TypeScript 5; the answer says why.
 */
export async function useNativeTypeChecker(): Promise<TypeCheckerChoice> {
  const { findNativeTsc } = await import('./type-check/native-tsc.js');
  const tsc = findNativeTsc();
  if (!tsc.ok) return { native: false, reason: tsc.reason };
  native = true;
  return { native: true, detail: `TypeScript ${tsc.version}'s native compiler (${tsc.exe})` };
}

/**
 * A type checker for programs against the build in `outDir`. Checkers are cheap: all of a process
 * share its check workers, which stay warm (and do not keep the process alive) between checks.
 */
export function createTypeChecker(options: TypeCheckerOptions): TypeChecker {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TYPE_CHECK_LIMITS.timeoutMs;
  const shared = poolFor(options.memoryLimitMb ?? DEFAULT_TYPE_CHECK_LIMITS.memoryLimitMb);
  const outDir = path.resolve(options.outDir);
  return {
    // A run's own time limit bounds its check too (a run limited to 2 s does not wait 10 s on it).
    check: (code, checkOptions = {}) =>
      shared.check({ outDir, code, timeoutMs: Math.max(1, Math.ceil(Math.min(timeoutMs, checkOptions.timeoutMs ?? timeoutMs))) }),
  };
}

/**
 * Starts loading TypeScript in a check worker now, for a host that knows a check is coming (the CLI's
 * `run`): the load, the larger part of a first check, then overlaps the host's own start-up.
 */
export function warmTypeChecker(options: { memoryLimitMb?: number } = {}): void {
  poolFor(options.memoryLimitMb ?? DEFAULT_TYPE_CHECK_LIMITS.memoryLimitMb).warm();
}

function poolFor(memoryLimitMb: number): CheckPool {
  const key = `${memoryLimitMb}:${native}`;
  let pool = pools.get(key);
  if (pool === undefined) {
    pool = createCheckPool({ memoryLimitMb, maxWorkers: MAX_WORKERS, ...(native ? { entry: 'native-check-worker' } : {}) });
    pools.set(key, pool);
  }
  return pool;
}

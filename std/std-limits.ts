import { ToolCallError } from '../core/index.js';
import type { ToolCallContext } from '../core/index.js';

/**
 * The host budgets of the standard library. Every std function runs on the host with arguments a
 * hostile program chose, so each one bounds what it reads, buffers, writes and keeps — whatever the
 * caller asks for. docs/security/std.md lists them with their defaults.
 */
export interface StdLimits {
  /**
   * Largest result a std function builds, in bytes. The bridge refuses results past its own cap
   * (`maxResultBytes`, 1 MiB by default), so nothing bigger is ever worth reading into memory.
   */
  maxResultBytes: number;
  /** Largest text argument (csv and json text, crypto data), in characters. */
  maxInputChars: number;
  /** Bytes one run may write to the workspace with fs.writeFile and fs.appendFile, in all. */
  maxWriteBytesPerRun: number;
}

/** Mirrors the bridge's default result cap (bridge/create-bridge.ts `DEFAULT_MAX_RESULT_BYTES`); std may not import the bridge. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

export const DEFAULT_STD_LIMITS: StdLimits = {
  maxResultBytes: DEFAULT_MAX_RESULT_BYTES,
  maxInputChars: 4 * 1024 * 1024,
  maxWriteBytesPerRun: 64 * 1024 * 1024,
};

/**
 * Heavy calls (fs.readFile, http.fetch: up to the result cap each) one run may have in flight at once,
 * per tool; more wait their turn. A hundred parallel 1 MiB reads would otherwise hold hundreds of MiB.
 */
export const MAX_HEAVY_CALLS_PER_RUN = 8;

/** Most runs whose write totals are remembered at once; the least recently writing is forgotten first. */
export const MAX_TRACKED_RUNS = 4096;

/** `1048576` → `1 MiB`, `1536` → `1.5 KiB`: sizes in messages. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(1))} ${units[unit]}`;
}

/**
 * A std computation stopped because its result would pass `limit` (bytes or characters). Thrown by
 * the pure helpers (csv, json); the tools turn it into a `RESULT_TOO_LARGE` tool error.
 */
export class OutputTooLargeError extends RangeError {
  override readonly name = 'OutputTooLargeError';

  constructor(
    readonly what: string,
    readonly limit: number,
  ) {
    super(`${what} would be larger than ${formatBytes(limit)}`);
  }
}

/** Runs a std computation, turning an `OutputTooLargeError` into a `RESULT_TOO_LARGE` tool error that says what to do. */
export function withOutputLimit<T>(context: ToolCallContext, advice: string, action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (!(error instanceof OutputTooLargeError)) throw error;
    throw new ToolCallError(
      'RESULT_TOO_LARGE',
      `${error.message}, the most a std result may be: ${advice}`,
      { capability: context.capability, function: context.function },
      {
        details: { maxResultBytes: error.limit },
        cause: error,
      },
    );
  }
}

import { ToolCallError } from '../core/index.js';
import type { ToolCallContext } from '../core/index.js';
import { LruMap } from './lru-map.js';
import { MAX_TRACKED_RUNS, formatBytes } from './std-limits.js';

export interface WriteQuota {
  /**
   * Counts `bytes` against the run of `context` before they are written, or throws `FORBIDDEN` when
   * they would pass the quota. Returns a function that gives the bytes back when the write failed.
   */
  reserve(context: ToolCallContext, bytes: number, userPath: string): () => void;
  /** Bytes counted for a run so far (0 for a run never seen or already forgotten). */
  writtenBy(runId: string): number;
}

/**
 * The per-run disk write quota of std fs. Runs are known by `context.runId`; totals are kept in a
 * bounded LRU (a run that writes is moved to the end; past `maxRuns`, the least recent is forgotten),
 * so the host's memory does not grow with the number of runs it has served. A run that ended cannot
 * write any more (the bridge cancels its calls), so forgetting it loses nothing.
 */
export function createWriteQuota(options: { maxBytesPerRun: number; maxRuns?: number }): WriteQuota {
  const written = new LruMap<string, number>(options.maxRuns ?? MAX_TRACKED_RUNS);

  return {
    reserve(context, bytes, userPath) {
      const before = written.get(context.runId) ?? 0;
      if (before + bytes > options.maxBytesPerRun) {
        throw new ToolCallError(
          'FORBIDDEN',
          `writing ${formatBytes(bytes)} to "${userPath}" is refused: this run has written ${formatBytes(before)} with std fs and the per-run write quota is ${formatBytes(options.maxBytesPerRun)} (std.fs.maxWriteBytesPerRun): write less, or raise std.fs.maxWriteBytesPerRun in the config`,
          { capability: context.capability, function: context.function },
          {
            details: {
              path: userPath,
              bytes,
              writtenBytes: before,
              maxWriteBytesPerRun: options.maxBytesPerRun,
              configKey: 'std.fs.maxWriteBytesPerRun',
            },
          },
        );
      }
      written.set(context.runId, before + bytes);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const now = written.peek(context.runId);
        if (now !== undefined) written.set(context.runId, Math.max(0, now - bytes));
      };
    },
    writtenBy(runId) {
      return written.peek(runId) ?? 0;
    },
  };
}

import { describe, expect, it } from 'vitest';
import type { ToolCallContext } from '../core/index.js';
import { toolCallErrorOf } from '../test/support/tool-call-error-of.js';
import { createWriteQuota } from './write-quota.js';

const contextOf = (runId: string): ToolCallContext => ({
  runId,
  capability: 'std-fs',
  function: 'writeFile',
  signal: new AbortController().signal,
});

describe('createWriteQuota', () => {
  it('counts bytes per run, refuses past the quota and gives back released bytes once', async () => {
    const quota = createWriteQuota({ maxBytesPerRun: 10 });
    quota.reserve(contextOf('a'), 6, 'x');
    const release = quota.reserve(contextOf('a'), 4, 'y');
    expect(quota.writtenBy('a')).toBe(10);
    const error = await toolCallErrorOf(Promise.resolve().then(() => quota.reserve(contextOf('a'), 1, 'z')));
    expect(error).toMatchObject({ code: 'FORBIDDEN', capability: 'std-fs', function: 'writeFile' });
    expect(error.message).toContain('per-run write quota is 10 bytes (std.fs.maxWriteBytesPerRun)');
    release();
    release();
    expect(quota.writtenBy('a')).toBe(6);
    quota.reserve(contextOf('b'), 10, 'y');
    expect(quota.writtenBy('b')).toBe(10);
  });

  it('remembers at most maxRuns runs, forgetting the one that wrote least recently', () => {
    const quota = createWriteQuota({ maxBytesPerRun: 100, maxRuns: 3 });
    for (const runId of ['r1', 'r2', 'r3']) quota.reserve(contextOf(runId), 1, 'f');
    quota.reserve(contextOf('r1'), 1, 'f'); // r1 is now the most recent
    quota.reserve(contextOf('r4'), 1, 'f');
    expect(['r1', 'r2', 'r3', 'r4'].map((runId) => quota.writtenBy(runId))).toEqual([2, 0, 1, 1]);
    for (let index = 0; index < 10_000; index += 1) quota.reserve(contextOf(`many-${index}`), 1, 'f');
    expect(['r1', 'r3', 'r4', 'many-9996', 'many-9997', 'many-9998', 'many-9999'].map((runId) => quota.writtenBy(runId))).toEqual([
      0, 0, 0, 0, 1, 1, 1,
    ]);
  });
});

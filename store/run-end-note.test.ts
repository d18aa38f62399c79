// A run's end carried by its notification (store/run-events.ts, RUN_ENDS_CHANNEL), against a real
// PostgreSQL: a follower gets the result and the run's latest earlier events with the wake-up, so it
// needs no read after it; an end too large for a notification (8000 bytes) wakes it without them (it
// reads), and a run with more earlier events than a note carries says its note is not complete.
import { describe, expect, it } from 'vitest';
import type { RunEndNote } from './run-events.js';
import { appendRunEvent, readRunEvents } from './run-events.js';
import { openStoreConnection } from './store-connection.js';
import { useStoreForFile } from './test-support/worker-processes.js';

const testStore = useStoreForFile();

describe("a run's end in its notification", () => {
  it('carries the result and the earlier events when they fit, and only wakes the follower when they do not', async () => {
    const store = await testStore.cluster.createDatabase('run_end_note');
    const connection = await openStoreConnection(store, 2);
    try {
      const follow = (runId: string): { wakes: (RunEndNote | undefined)[]; stop: () => void } => {
        const wakes: (RunEndNote | undefined)[] = [];
        return { wakes, stop: connection.onRunEvents(runId, (end) => wakes.push(end)) };
      };
      const small = follow('run-small');
      await appendRunEvent(connection.pool, 'run-small', { kind: 'started', executorId: 'w1', attempt: 1, replayedCalls: 0 });
      await appendRunEvent(connection.pool, 'run-small', { kind: 'log', log: { level: 'log', message: 'hello', timestamp: 1 } as never });
      const result = { success: true, result: 2, logs: [], timedOut: false, calls: 0, durationMs: 1 };
      await appendRunEvent(connection.pool, 'run-small', { kind: 'end', result });
      await expect.poll(() => small.wakes.find((end) => end !== undefined)).toBeDefined();
      const note = small.wakes.find((end) => end !== undefined) as RunEndNote;
      const stored = await readRunEvents(connection.pool, 'run-small', 0);
      // What the note says is what a read gives: the same events, seqs, and result.
      expect(note.complete).toBe(true);
      expect([...note.earlier, { seq: note.seq, event: note.event }]).toEqual(stored);
      expect(note.event.result).toEqual(result);
      small.stop();

      const large = follow('run-large');
      await appendRunEvent(connection.pool, 'run-large', { kind: 'end', result: { ...result, result: 'x'.repeat(9000) } });
      await expect.poll(() => large.wakes.length).toBeGreaterThanOrEqual(1);
      expect(large.wakes.every((end) => end === undefined)).toBe(true);
      large.stop();

      const long = follow('run-long');
      for (let line = 0; line < 20; line += 1)
        await appendRunEvent(connection.pool, 'run-long', {
          kind: 'log',
          log: { level: 'log', message: `line ${line}`, timestamp: line } as never,
        });
      await appendRunEvent(connection.pool, 'run-long', { kind: 'end', result });
      await expect.poll(() => long.wakes.find((end) => end !== undefined)).toBeDefined();
      const longNote = long.wakes.find((end) => end !== undefined) as RunEndNote;
      const events = await readRunEvents(connection.pool, 'run-long', 0);
      expect(longNote.complete).toBe(false);
      expect(longNote.earlier).toEqual(events.slice(-17, -1));
      long.stop();
    } finally {
      await connection.close();
    }
  }, 120_000);
});

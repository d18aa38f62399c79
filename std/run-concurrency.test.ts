import { describe, expect, it } from 'vitest';
import type { ToolCallContext } from '../core/index.js';
import { toolCallErrorOf } from '../test/support/tool-call-error-of.js';
import { createRunConcurrency } from './run-concurrency.js';

const contextOf = (runId: string, signal = new AbortController().signal): ToolCallContext => ({
  runId,
  capability: 'std-fs',
  function: 'readFile',
  signal,
});

/** An action that stays running until `finish` is called. */
function gate() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { done, finish: () => finish() };
}

describe('createRunConcurrency', () => {
  it('runs at most the limit of one run at once, in order, other runs apart, and keeps nothing when idle', async () => {
    const limiter = createRunConcurrency(3);
    let active = 0;
    let most = 0;
    const order: number[] = [];
    const gates = Array.from({ length: 10 }, () => gate());
    const calls = gates.map((entry, index) =>
      limiter.run(contextOf('a'), async () => {
        active += 1;
        most = Math.max(most, active);
        order.push(index);
        await entry.done;
        active -= 1;
        return index;
      }),
    );
    // Another run is not held up by run a's queue.
    await expect(limiter.run(contextOf('b'), async () => 'b')).resolves.toBe('b');
    await expect.poll(() => order.length).toBe(3);
    for (const entry of gates) entry.finish();
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(3);
    expect(limiter.activeRuns()).toBe(0);
  });

  it('frees the slot of a failed action, and drops waiters of a run that ended', async () => {
    const limiter = createRunConcurrency(1);
    const run = new AbortController();
    const first = gate();
    const running = limiter.run(contextOf('a', run.signal), () => first.done.then(() => 'first'));
    let waiterStarted = false;
    const waiting = limiter.run(contextOf('a', run.signal), async () => {
      waiterStarted = true;
    });
    run.abort();
    expect(await toolCallErrorOf(waiting)).toMatchObject({
      code: 'CANCELLED',
      message: 'std-fs.readFile was cancelled while it waited for a free slot: the run ended',
    });
    first.finish();
    await expect(running).resolves.toBe('first');
    expect(waiterStarted).toBe(false);
    expect(limiter.activeRuns()).toBe(0);
    await expect(limiter.run(contextOf('c'), () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(contextOf('c'), async () => 'after')).resolves.toBe('after');
    expect(limiter.activeRuns()).toBe(0);
  });
});

import { ToolCallError } from '../core/index.js';
import type { ToolCallContext } from '../core/index.js';

export interface RunConcurrency {
  /** Runs `action` once fewer than the limit of the same run's actions are running; the others wait in order. */
  run<T>(context: ToolCallContext, action: () => Promise<T>): Promise<T>;
  /** Runs with an action running or waiting now (0 when idle: nothing is kept for runs that are done). */
  activeRuns(): number;
}

interface RunSlots {
  active: number;
  waiting: (() => void)[];
}

/**
 * Bounds how many heavy std calls (file reads, HTTP fetches: up to a result cap each) one run has in
 * flight at once. A program may start hundreds of calls at once; without this, a hundred 1 MiB reads
 * would hold hundreds of MiB on the host. Waiting calls hold nothing but their arguments, and leave the
 * queue when their run ends. State exists only while a run has calls in flight.
 */
export function createRunConcurrency(maxPerRun: number): RunConcurrency {
  const runs = new Map<string, RunSlots>();

  const release = (runId: string, slots: RunSlots): void => {
    const next = slots.waiting.shift();
    if (next !== undefined) return next(); // the slot passes straight to the next waiter
    slots.active -= 1;
    if (slots.active === 0) runs.delete(runId);
  };

  const waitTurn = (slots: RunSlots, context: ToolCallContext): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const cancelled = (): ToolCallError =>
        new ToolCallError(
          'CANCELLED',
          `${context.capability}.${context.function} was cancelled while it waited for a free slot: the run ended`,
          {
            capability: context.capability,
            function: context.function,
          },
        );
      if (context.signal.aborted) return reject(cancelled());
      const wake = (): void => {
        context.signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const index = slots.waiting.indexOf(wake);
        if (index >= 0) slots.waiting.splice(index, 1);
        reject(cancelled());
      };
      slots.waiting.push(wake);
      context.signal.addEventListener('abort', onAbort, { once: true });
    });

  return {
    async run(context, action) {
      let slots = runs.get(context.runId);
      if (slots === undefined) {
        slots = { active: 0, waiting: [] };
        runs.set(context.runId, slots);
      }
      if (slots.active < maxPerRun) slots.active += 1;
      else await waitTurn(slots, context);
      try {
        return await action();
      } finally {
        release(context.runId, slots);
      }
    },
    activeRuns: () => runs.size,
  };
}

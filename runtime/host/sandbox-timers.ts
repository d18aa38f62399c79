/**
 * The host side of a run's timers (`setTimeout`/`setInterval` inside the isolate). The isolate keeps
 * the callbacks; the host keeps only ids and Node timers, and wakes the isolate when one is due. The
 * timers live on the host's clock, so they count against the run's wall clock like everything else:
 * a timer due after the deadline never fires, the run times out first. When the run ends, every
 * pending timer is dropped (see {@link RunTimers.clearAll}), so none fires after a run ended or its
 * isolate was disposed, and none keeps a finished run alive.
 */

/** Limits of a run's timers; the isolate refuses past them with a `RangeError` the program can catch. */
export const TIMER_LIMITS = Object.freeze({
  /** Timers pending at once (an interval counts as one until it is cleared). */
  maxPending: 1_000,
  /** `setTimeout`/`setInterval` calls per run (an interval's repeats are not counted). */
  maxPerRun: 10_000,
  /** Longer delays are clamped to this (2^31 − 1 ms, as in browsers and Node): they never fire within a run. */
  maxDelayMs: 2_147_483_647,
});

export interface RunTimers {
  /** Starts timer `id` (an id the isolate chose). Ignored past the limits: the isolate enforces them first. */
  set(id: number, delayMs: number, repeat: boolean): void;
  clear(id: number): void;
  /**
   * After an interval fired: arms it again with the delay the isolate returned, or forgets it when
   * the isolate returned a negative delay (it was cleared, or its callback failed the run).
   */
  rearm(id: number, delayMs: number): void;
  /** Drops every pending timer (the run ended). */
  clearAll(): void;
  /** Timers pending, intervals whose callback is running included. */
  readonly size: number;
}

/**
 * Timers of one run. `fire(id)` is called when timer `id` is due; a one-shot timer is forgotten before
 * that, an interval waits for {@link RunTimers.rearm} (so a slow isolate never has two wake-ups of one
 * interval queued, however short its delay).
 */
export function createRunTimers(fire: (id: number) => void): RunTimers {
  /** id → the Node timer while armed, `undefined` while an interval's callback runs. */
  const armed = new Map<number, { handle: NodeJS.Timeout | undefined; repeat: boolean }>();
  let created = 0;
  let closed = false;

  const arm = (id: number, delayMs: number): NodeJS.Timeout => {
    const handle = setTimeout(() => {
      const entry = armed.get(id);
      if (entry === undefined || entry.handle !== handle) return;
      if (entry.repeat) entry.handle = undefined;
      else armed.delete(id);
      fire(id);
    }, clampDelay(delayMs));
    return handle;
  };

  return {
    set(id, delayMs, repeat) {
      if (closed || !Number.isSafeInteger(id) || armed.has(id)) return;
      if (armed.size >= TIMER_LIMITS.maxPending || created >= TIMER_LIMITS.maxPerRun) return;
      created++;
      armed.set(id, { handle: arm(id, delayMs), repeat: repeat === true });
    },
    clear(id) {
      const entry = armed.get(id);
      if (entry === undefined) return;
      clearTimeout(entry.handle);
      armed.delete(id);
    },
    rearm(id, delayMs) {
      const entry = armed.get(id);
      if (entry === undefined || entry.handle !== undefined) return;
      if (closed || !(delayMs >= 0)) armed.delete(id);
      else entry.handle = arm(id, delayMs);
    },
    clearAll() {
      closed = true;
      for (const entry of armed.values()) clearTimeout(entry.handle);
      armed.clear();
    },
    get size() {
      return armed.size;
    },
  };
}

/** A delay Node's setTimeout takes as given: a whole number of ms in 1 … 2^31 − 1. */
function clampDelay(delayMs: number): number {
  if (!(delayMs >= 1)) return 1;
  return Math.min(Math.floor(delayMs), TIMER_LIMITS.maxDelayMs);
}

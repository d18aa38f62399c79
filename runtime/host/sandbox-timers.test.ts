import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRunTimers, TIMER_LIMITS } from './sandbox-timers.js';

describe('createRunTimers', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires a timeout once, at its delay (at least 1 ms), and forgets it', () => {
    const fired: number[] = [];
    const timers = createRunTimers((id) => fired.push(id));
    timers.set(1, 0, false);
    timers.set(2, 50, false);
    expect(timers.size).toBe(2);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([1]);
    vi.advanceTimersByTime(49);
    expect(fired).toEqual([1, 2]);
    expect(timers.size).toBe(0);
  });
  it('waits for rearm before an interval fires again, and forgets it on a negative delay', () => {
    const fired: number[] = [];
    const timers = createRunTimers((id) => fired.push(id));
    timers.set(7, 10, true);
    vi.advanceTimersByTime(100);
    // Fired once: the isolate has not said when to fire again.
    expect(fired).toEqual([7]);
    expect(timers.size).toBe(1);
    timers.rearm(7, 10);
    vi.advanceTimersByTime(10);
    expect(fired).toEqual([7, 7]);
    timers.rearm(7, -1);
    expect(timers.size).toBe(0);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual([7, 7]);
  });
  it('does not rearm an interval cleared while its callback ran, nor one that is still armed', () => {
    const fired: number[] = [];
    const timers = createRunTimers((id) => fired.push(id));
    timers.set(1, 5, true);
    vi.advanceTimersByTime(5);
    timers.clear(1);
    timers.rearm(1, 5);
    timers.set(2, 5, true);
    timers.rearm(2, 1);
    vi.advanceTimersByTime(50);
    expect(fired).toEqual([1, 2]);
  });
  it('drops everything on clearAll and takes no timer after it', () => {
    const fired: number[] = [];
    const timers = createRunTimers((id) => fired.push(id));
    timers.set(1, 5, false);
    timers.set(2, 5, true);
    timers.clearAll();
    timers.set(3, 5, false);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([]);
    expect(timers.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
  it('clamps delays past 2^31 - 1 ms instead of letting Node fire them at once', () => {
    const fired: number[] = [];
    const timers = createRunTimers((id) => fired.push(id));
    timers.set(1, Number.MAX_VALUE, false);
    timers.set(2, Infinity, false);
    vi.advanceTimersByTime(TIMER_LIMITS.maxDelayMs - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([1, 2]);
  });
  it('ignores timers past its own limits and ids it cannot use (the isolate refuses them first)', () => {
    let fired = 0;
    const timers = createRunTimers(() => fired++);
    for (let id = 1; id <= TIMER_LIMITS.maxPending + 5; id++) timers.set(id, 1000, false);
    expect(timers.size).toBe(TIMER_LIMITS.maxPending);
    timers.set(Number.NaN, 1, false);
    timers.set(1.5, 1, false);
    timers.set(1, 1, false);
    expect(timers.size).toBe(TIMER_LIMITS.maxPending);
    vi.advanceTimersByTime(1000);
    // Only `maxPerRun` may ever be created, however many fired meanwhile.
    for (let id = 10_000; id < 10_000 + 2 * TIMER_LIMITS.maxPerRun; id++) {
      timers.set(id, 1, false);
      if (id % 100 === 0) vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(10);
    expect(fired).toBe(TIMER_LIMITS.maxPerRun);
  });
});

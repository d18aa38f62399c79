import type { RateLimit, RatePeriod } from '../core/index.js';

export const RATE_PERIOD_MS: Record<RatePeriod, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface RateLimiter {
  /** Takes one slot of `key`'s window if one is free; otherwise says how long until one frees up. */
  tryAcquire(key: string, limit: RateLimit): RateDecision;
}

/**
 * A sliding-window limiter: at most `limit.requests` acquisitions of a key within any window of
 * `limit.period`. Sliding rather than fixed windows, so a burst at a window's edge cannot double the
 * rate. `now` is injectable for deterministic tests.
 */
export function createRateLimiter(options: { now?: () => number } = {}): RateLimiter {
  const now = options.now ?? Date.now;
  const windows = new Map<string, number[]>();

  return {
    tryAcquire(key, limit) {
      const periodMs = RATE_PERIOD_MS[limit.period];
      const time = now();
      const recent = (windows.get(key) ?? []).filter((stamp) => stamp > time - periodMs);
      if (recent.length >= limit.requests) {
        windows.set(key, recent);
        const oldest = recent[recent.length - limit.requests] ?? time;
        return { allowed: false, retryAfterMs: Math.max(1, oldest + periodMs - time) };
      }
      recent.push(time);
      windows.set(key, recent);
      return { allowed: true };
    },
  };
}

/**
 * A queued rate limit is one line shared by every run of a space: a run that fills it and ends leaves
 * nothing queued, and one run's program cannot take the whole line from the others.
 */
import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../bridge/rate-limiter.js';
import type { RateLimit } from '../../core/index.js';

describe('queued rate limits', () => {
  const limit: RateLimit = { requests: 1, period: 'second', onLimit: 'queue', maxWaitMs: 200_000, maxQueue: 100 };

  it('a run that fills the line and ends leaves it: nothing stays queued and the next caller is served', async () => {
    const limiter = createRateLimiter();
    expect(await limiter.acquire('api', limit)).toMatchObject({ allowed: true });
    const hostile = new AbortController();
    const queued = Array.from({ length: 150 }, () => limiter.acquire('api', limit, hostile.signal));
    expect(limiter.waiting('api')).toBe(100);
    hostile.abort();
    const outcomes = await Promise.all(queued);
    expect(new Set(outcomes.map((outcome) => (outcome.allowed ? 'allowed' : outcome.reason)))).toEqual(
      new Set(['cancelled', 'queue-full']),
    );
    expect(limiter.waiting('api')).toBe(0);
    // The next caller waits for the window only, and is served.
    expect(await limiter.acquire('api', limit)).toMatchObject({ allowed: true });
    expect(limiter.waiting('api')).toBe(0);
  }, 30_000);

  // maxQueue bounds each owner (run), and owners take turns (an owner's k-th call waits in round k):
  // otherwise one run's program fills the shared line and every other run's call is refused at once.
  it('one run cannot take the whole shared line from another run', async () => {
    const limiter = createRateLimiter();
    await limiter.acquire('api', limit);
    const hostile = new AbortController();
    const queued = Array.from({ length: 100 }, () => limiter.acquire('api', limit, hostile.signal));
    const victim = new AbortController();
    const victimCall = limiter.acquire('api', limit, victim.signal);
    const early = await Promise.race([victimCall, Promise.resolve('waiting' as const)]);
    hostile.abort();
    victim.abort();
    await Promise.all([...queued, victimCall]);
    expect(early).toBe('waiting');
  });
});

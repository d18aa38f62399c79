import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limiter.js';

describe('createRateLimiter', () => {
  it('allows N per sliding window and says when the oldest slot frees up', () => {
    let now = 0;
    const limiter = createRateLimiter({ now: () => now });
    const limit = { requests: 3, period: 'second' } as const;
    expect(limiter.tryAcquire('a', limit)).toEqual({ allowed: true });
    now = 200;
    expect(limiter.tryAcquire('a', limit)).toEqual({ allowed: true });
    now = 400;
    expect(limiter.tryAcquire('a', limit)).toEqual({ allowed: true });
    now = 900;
    expect(limiter.tryAcquire('a', limit)).toEqual({ allowed: false, retryAfterMs: 100 });
    expect(limiter.tryAcquire('b', limit)).toEqual({ allowed: true });
    now = 1000;
    expect(limiter.tryAcquire('a', limit)).toEqual({ allowed: true });
    // The window slid: 200, 400 and 1000 are inside (1000 - 1000, 1000].
    now = 1100;
    expect(limiter.tryAcquire('a', limit)).toEqual({ allowed: false, retryAfterMs: 100 });
  });
});

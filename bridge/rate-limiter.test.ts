import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RateLimit } from '../core/index.js';
import { createRateLimiter, rateLimitError, type RateDecision } from './rate-limiter.js';

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
    expect(limiter.tryAcquire('a', limit)).toEqual({ allowed: false, retryAfterMs: 100, reason: 'window-full' });
    expect(limiter.tryAcquire('b', limit)).toEqual({ allowed: true });
    now = 1000;
    expect(limiter.tryAcquire('a', limit)).toEqual({ allowed: true });
    // The window slid: 200, 400 and 1000 are inside (1000 - 1000, 1000].
    now = 1100;
    expect(limiter.tryAcquire('a', limit)).toEqual({ allowed: false, retryAfterMs: 100, reason: 'window-full' });
  });

  it('without onLimit: "queue", acquire fails at once like tryAcquire', async () => {
    const limiter = createRateLimiter({ now: () => 0 });
    const limit: RateLimit = { requests: 1, period: 'minute' };
    await expect(limiter.acquire('a', limit)).resolves.toEqual({ allowed: true });
    await expect(limiter.acquire('a', limit)).resolves.toEqual({ allowed: false, retryAfterMs: 60_000, reason: 'window-full' });
    expect(limiter.waiting('a')).toBe(0);
  });
});

// Queueing waits on timers: fake ones (they move Date.now too), so no test depends on the machine's speed.
describe('createRateLimiter: onLimit "queue"', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const queued = (extra: Partial<RateLimit> = {}): RateLimit => ({
    requests: 2,
    period: 'second',
    onLimit: 'queue',
    maxWaitMs: 5_000,
    ...extra,
  });

  it('a call past the limit waits for its slot, and waiting calls are served in arrival order', async () => {
    const limiter = createRateLimiter();
    const limit = queued();
    const order: string[] = [];
    const take = (name: string) =>
      limiter.acquire('crm', limit).then((decision) => {
        order.push(name);
        return decision;
      });
    await Promise.all([take('a'), take('b')]);
    const later = [take('c'), take('d'), take('e')];
    expect(limiter.waiting('crm')).toBe(3);
    await vi.advanceTimersByTimeAsync(999);
    expect(order).toEqual(['a', 'b']);
    await vi.advanceTimersByTimeAsync(1);
    expect(order).toEqual(['a', 'b', 'c', 'd']);
    await vi.advanceTimersByTimeAsync(1_000);
    const decisions = await Promise.all(later);
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(decisions).toEqual([
      { allowed: true, waitedMs: 1_000 },
      { allowed: true, waitedMs: 1_000 },
      { allowed: true, waitedMs: 2_000 },
    ]);
    expect(limiter.waiting('crm')).toBe(0);
  });

  it("runs take turns: a run's first waiting call is served before another run's second, and maxQueue bounds each run", async () => {
    const limiter = createRateLimiter();
    const limit = queued({ requests: 1, maxQueue: 3, maxWaitMs: 60_000 });
    const order: string[] = [];
    const take = (name: string, run: string) =>
      limiter.acquire('crm', limit, undefined, run).then((decision) => {
        if (decision.allowed) order.push(name);
        return decision;
      });
    await take('first', 'busy');
    const busy = [take('busy-1', 'busy'), take('busy-2', 'busy'), take('busy-3', 'busy')];
    // The busy run's line is full; another run still gets in, and waits one turn, not three.
    await expect(take('busy-4', 'busy')).resolves.toMatchObject({ allowed: false, reason: 'queue-full' });
    const other = [take('other-1', 'other'), take('other-2', 'other')];
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all([...busy, ...other]);
    expect(order).toEqual(['first', 'busy-1', 'other-1', 'busy-2', 'other-2', 'busy-3']);
  });

  it('refuses at once when the line is full (maxQueue) or the slot would come after maxWaitMs', async () => {
    const limiter = createRateLimiter();
    const limit = queued({ requests: 1, maxQueue: 1, maxWaitMs: 1_500 });
    await limiter.acquire('crm', limit);
    const waiting = limiter.acquire('crm', limit);
    expect(limiter.waiting('crm')).toBe(1);
    await expect(limiter.acquire('crm', limit)).resolves.toEqual({ allowed: false, retryAfterMs: 2_000, reason: 'queue-full', waiting: 1 });
    // With room in the line: one call already takes the next second, so this one would wait 2 s > 1.5 s.
    await expect(limiter.acquire('crm', { ...limit, maxQueue: 10 })).resolves.toEqual({
      allowed: false,
      retryAfterMs: 2_000,
      reason: 'wait-too-long',
    });
    await expect(limiter.acquire('slow', { ...limit, period: 'minute' })).resolves.toEqual({ allowed: true });
    await expect(limiter.acquire('slow', { ...limit, period: 'minute' })).resolves.toEqual({
      allowed: false,
      retryAfterMs: 60_000,
      reason: 'wait-too-long',
    });
    expect(limiter.waiting('crm')).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(waiting).resolves.toEqual({ allowed: true, waitedMs: 1_000 });
  });

  it('a waiting call gives up after maxWaitMs when its slot did not come in time', async () => {
    let skew = 0;
    const limiter = createRateLimiter({ now: () => Date.now() + skew });
    const limit = queued({ requests: 1, maxWaitMs: 1_500 });
    await limiter.acquire('crm', limit);
    const waiting = limiter.acquire('crm', limit);
    // Someone outside the line takes the slot that frees up at 1 s (its clock runs ahead), so the
    // line's next slot comes at 2 s, after the waiting call's 1.5 s.
    skew = 1_000;
    expect(limiter.tryAcquire('crm', limit)).toEqual({ allowed: true });
    skew = 0;
    await vi.advanceTimersByTimeAsync(1_499);
    expect(limiter.waiting('crm')).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(waiting).resolves.toEqual({ allowed: false, retryAfterMs: 500, reason: 'wait-too-long' });
    expect(limiter.waiting('crm')).toBe(0);
  });

  it('a cancelled call leaves the line at once, and the next in line moves up', async () => {
    const limiter = createRateLimiter();
    const limit = queued({ requests: 1, maxWaitMs: 60_000 });
    await limiter.acquire('crm', limit);
    const controller = new AbortController();
    const cancelled = limiter.acquire('crm', limit, controller.signal);
    const next = limiter.acquire('crm', limit);
    expect(limiter.waiting('crm')).toBe(2);
    controller.abort(new Error('run timed out'));
    await expect(cancelled).resolves.toEqual({ allowed: false, retryAfterMs: 0, reason: 'cancelled' });
    expect(limiter.waiting('crm')).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(next).resolves.toEqual({ allowed: true, waitedMs: 1_000 });
    expect(limiter.waiting('crm')).toBe(0);
    // An already aborted signal never joins the line.
    await expect(limiter.acquire('crm', limit, AbortSignal.abort())).resolves.toMatchObject({ reason: 'cancelled' });
    expect(limiter.waiting('crm')).toBe(0);
  });
});

describe('rateLimitError', () => {
  const call = { subject: 'tool "search" of capability "crm"', names: { capability: 'crm', function: 'search' } };
  const refused = (reason: Extract<RateDecision, { allowed: false }>['reason']) => ({
    allowed: false as const,
    retryAfterMs: 2_000,
    reason,
    ...(reason === 'queue-full' ? { waiting: 3 } : {}),
  });

  it('says which bound was hit and what to do', () => {
    const limit: RateLimit = { requests: 5, period: 'minute', onLimit: 'queue', maxWaitMs: 10_000, maxQueue: 3 };
    expect(rateLimitError(refused('queue-full'), limit, call).message).toBe(
      'tool "search" of capability "crm" is rate-limited: capability "crm" allows 5 calls per minute and 3 calls already wait for a slot (maxQueue 3); retry after 2.0 s',
    );
    expect(rateLimitError(refused('wait-too-long'), limit, call).message).toBe(
      'tool "search" of capability "crm" is rate-limited: capability "crm" allows 5 calls per minute; no slot frees up within maxWaitMs (10.0 s); retry after 2.0 s, or raise maxWaitMs',
    );
    const cancelled = rateLimitError(refused('cancelled'), limit, call);
    expect([cancelled.code, cancelled.message]).toEqual([
      'CANCELLED',
      'tool "search" of capability "crm" was cancelled while it waited for a rate-limit slot: the run ended',
    ]);
    expect(rateLimitError(refused('queue-full'), limit, call)).toMatchObject({
      code: 'RATE_LIMITED',
      details: { retryAfterMs: 2_000, reason: 'queue-full' },
    });
  });
});
